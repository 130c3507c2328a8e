// The console's views over the admin API: finding accounts (a page at a time, by cursor), one account's
// page (passkeys, sessions, groups, recent activity and the operator's actions), and the audit trail.
// Every text from the server goes in as textContent, never as markup.

import { $, element, button, say, warn, whileBusy, modal, setUnavailable, isUnavailable } from "./ui.js";

// The audit trail's events (openapi.yaml's AuditEvent.event), for the filter.
const EVENTS = [
  "account.created", "account.updated", "account.deleted", "account.disabled", "account.enabled", "account.created_by_operator",
  "account.email_verified", "passkey.added", "passkey.renamed", "passkey.removed", "passkey.refused", "passkey.counter_reset",
  "passkey.backup_state_changed", "login.succeeded", "login.refused", "login.possible_clone", "session.ended", "sessions.revoked",
  "access_token.issued", "admin_key.created", "admin_key.revoked", "admin.granted", "admin.revoked", "console.signed_in",
  "recovery.issued", "recovery.revoked", "recovery.exchanged", "recovery.completed", "recovery.refused", "recovery.email_sent",
  "device_request.approved", "device_request.denied", "device_request.completed", "invite.created", "invite.used", "invite.revoked",
  "oidc.authorized", "oidc.consent_given", "oidc.code_exchanged", "oidc.code_reused", "oidc.refresh_rotated", "oidc.refresh_reused",
  "oidc.grant_revoked", "oidc.logout", "oidc_client.created", "oidc_client.updated", "oidc_client.secret_rotated", "oidc_client.removed",
  "metadata.loaded",
];

const when = (iso) => (iso ? new Date(iso).toLocaleString() : "never");
// A date as typed (YYYY-MM-DD): the API takes it as that day's start in UTC.
const dayStart = (value) => value || null;

function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const text = search.toString();
  return text ? "?" + text : "";
}

function fact(list, name, value) {
  list.append(element("dt", null, name), element("dd", null, value));
}

function row(title, meta, actions = []) {
  const item = element("li", "row");
  const body = element("div", "row-body");
  body.append(title);
  for (const line of meta) if (line) body.append(element("p", "row-meta", line));
  item.append(body);
  if (actions.length) {
    const box = element("div", "row-actions");
    box.append(...actions);
    item.append(box);
  }
  return item;
}

export function setUpViews({ adminApi, show, scopes, explain }) {
  let accountsCursor = null;
  let auditCursor = null;
  let current = null; // the account shown

  // ---- accounts ----
  async function searchAccounts(append) {
    const params = {
      q: $("search-q").value.trim(), provider: $("search-provider").value.trim(),
      lastLoginFrom: dayStart($("search-from").value), lastLoginBefore: dayStart($("search-before").value),
      limit: "25", cursor: append ? accountsCursor : null,
    };
    const page = await adminApi("GET", "/api/admin/accounts" + query(params));
    const list = $("account-list");
    if (!append) list.replaceChildren();
    for (const account of page.accounts) {
      const open = button(account.displayName, "row-title button-link", () => openAccount(account.id));
      open.setAttribute("aria-label", `${account.displayName}, ${account.disabledAt ? "disabled" : "enabled"}`);
      list.append(row(open, [
        `${account.passkeys} passkey${account.passkeys === 1 ? "" : "s"} · ${account.sessions} session${account.sessions === 1 ? "" : "s"} · last sign-in ${when(account.lastLoginAt)}`,
        account.disabledAt ? `Disabled ${when(account.disabledAt)}` : null,
        account.id,
      ]));
    }
    $("results-empty").hidden = list.children.length > 0;
    accountsCursor = page.next;
    $("accounts-more").hidden = !page.next;
  }

  $("search-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await whileBusy($("search"), "Searching…", async () => {
      try { await searchAccounts(false); } catch (error) { warn(explain(error)); }
    });
  });
  $("accounts-more").addEventListener("click", (event) => whileBusy(event.currentTarget, "Loading…", async () => {
    try { await searchAccounts(true); } catch (error) { warn(explain(error)); }
  }));

  // ---- one account ----
  async function openAccount(id) {
    try {
      const [detail, events] = await Promise.all([
        adminApi("GET", "/api/admin/accounts/" + encodeURIComponent(id)),
        adminApi("GET", "/api/admin/audit" + query({ account: id, limit: "20" })),
      ]);
      current = detail;
      renderAccount(detail, events.events);
      show("account");
      $("account-title").focus();
    } catch (error) {
      warn(explain(error));
    }
  }

  function renderAccount(detail, events) {
    const account = detail.account;
    $("account-title").textContent = account.displayName;
    $("account-title").tabIndex = -1;
    $("account-state").textContent = account.disabledAt ? `Disabled since ${when(account.disabledAt)}` : "Enabled";
    $("account-state").classList.toggle("state-disabled", Boolean(account.disabledAt));
    const facts = $("account-facts");
    facts.replaceChildren();
    fact(facts, "Id", account.id);
    fact(facts, "Created", when(account.createdAt));
    fact(facts, "Last sign-in", when(account.lastLoginAt));
    fact(facts, "Username", detail.username ?? "none");
    fact(facts, "Email", detail.email ? `${detail.email}${detail.emailVerified ? " (verified)" : " (not verified)"}` : "none");
    fact(facts, "Groups", detail.groups.length ? detail.groups.join(", ") : "none");

    const write = scopes().includes("write");
    $("account-disable").textContent = account.disabledAt ? "Enable" : "Disable";
    $("disable-text").textContent = account.disabledAt
      ? "The account is disabled: enable it to let the person sign in again."
      : "Disabling ends every session at once and refuses sign-ins until enabled.";
    for (const id of ["account-disable", "account-revoke-sessions", "account-delete"]) $(id).hidden = !write;
    $("recovery-setting").hidden = !scopes().includes("recovery");

    const passkeys = $("account-passkeys");
    passkeys.replaceChildren();
    for (const passkey of detail.passkeys) {
      const remove = button("Remove", "button-small button-secondary", (event) => removePasskey(event.currentTarget, passkey, detail.passkeys.length));
      remove.setAttribute("aria-label", `Remove passkey ${passkey.name}`);
      remove.hidden = !write;
      passkeys.append(row(element("p", "row-title", passkey.name), [
        `${passkey.provider?.name ?? "Unknown provider"} · ${passkey.backupEligible ? "synced" : "device-bound"}`,
        `Added ${when(passkey.createdAt)} · last used ${when(passkey.lastUsedAt)}`,
      ], [remove]));
    }
    if (!detail.passkeys.length) passkeys.append(element("li", "row hint", "No passkey: the person needs a recovery code to get in."));

    const sessions = $("account-sessions");
    sessions.replaceChildren();
    for (const s of detail.sessions) {
      sessions.append(row(element("p", "row-title", `Session ${s.sid}`), [
        `Since ${when(s.createdAt)} · until ${when(s.expiresAt)}${s.userVerified ? " · user verified" : ""}`,
      ]));
    }
    if (!detail.sessions.length) sessions.append(element("li", "row hint", "No live session."));

    const activity = $("account-activity");
    activity.replaceChildren();
    for (const event of events) {
      activity.append(row(element("p", "row-title", event.event), [
        `${when(event.at)} · by ${event.actor}${event.clientAddress ? " from " + event.clientAddress : ""}`,
      ]));
    }
    if (!events.length) activity.append(element("li", "row hint", "Nothing recorded."));
  }

  const reload = () => openAccount(current.account.id);

  // The change, then the account drawn again — after the busy button has its own label back, so that
  // the new label (Disable / Enable) is the one that stays.
  async function act(target, label, work, done) {
    const changed = await whileBusy(target, label, async () => {
      try {
        await work();
        return true;
      } catch (error) {
        warn(explain(error));
        return false;
      }
    });
    if (!changed) return;
    await reload();
    say(done);
  }

  $("account-back").addEventListener("click", () => { show("accounts"); $("search-q").focus(); });
  $("account-disable").addEventListener("click", (event) => {
    const disabled = Boolean(current.account.disabledAt);
    const path = `/api/admin/accounts/${encodeURIComponent(current.account.id)}/${disabled ? "enable" : "disable"}`;
    act(event.currentTarget, disabled ? "Enabling…" : "Disabling…", () => adminApi("POST", path),
      disabled ? "Enabled: the person can sign in again." : "Disabled: the person's sessions have ended.");
  });
  $("account-revoke-sessions").addEventListener("click", (event) => {
    act(event.currentTarget, "Ending sessions…", () => adminApi("DELETE", `/api/admin/accounts/${encodeURIComponent(current.account.id)}/sessions`),
      "Every session of this account has ended.");
  });

  async function removePasskey(target, passkey, count) {
    const last = count === 1 ? "?allowLast=true" : "";
    if (last && !confirm(`${passkey.name} is the account's only passkey: the person will need a recovery code. Remove it?`)) return;
    await act(target, "Removing…", () => adminApi("DELETE", `/api/admin/passkeys/${encodeURIComponent(passkey.id)}${last}`), `Removed ${passkey.name}.`);
  }

  // The recovery code: shown once, in a dialog, never kept.
  const recoveryDialog = modal($("recovery-dialog"));
  $("account-recovery").addEventListener("click", (event) => whileBusy(event.currentTarget, "Issuing…", async () => {
    try {
      const issued = await adminApi("POST", `/api/admin/accounts/${encodeURIComponent(current.account.id)}/recovery`);
      $("recovery-code").textContent = issued.code;
      $("recovery-link").value = issued.link;
      $("recovery-expires").textContent = when(issued.grant.expiresAt);
      recoveryDialog.open();
    } catch (error) {
      warn(explain(error));
    }
  }));
  $("recovery-copy").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("recovery-link").value); say("Link copied."); } catch { $("recovery-link").select(); }
  });
  $("recovery-dialog").addEventListener("close", () => { $("recovery-code").textContent = ""; $("recovery-link").value = ""; });
  $("recovery-close").addEventListener("click", () => recoveryDialog.close());

  // Deleting: the account's name typed in full.
  const deleteDialog = modal($("delete-dialog"));
  $("account-delete").addEventListener("click", () => {
    $("delete-dialog-name").textContent = current.account.displayName;
    $("delete-confirm").value = "";
    setUnavailable($("delete-go"), true);
    deleteDialog.open();
    $("delete-confirm").focus();
  });
  $("delete-confirm").addEventListener("input", () => setUnavailable($("delete-go"), $("delete-confirm").value !== current.account.displayName));
  $("delete-cancel").addEventListener("click", () => deleteDialog.close());
  $("delete-go").addEventListener("click", (event) => {
    if (isUnavailable(event.currentTarget)) { warn("Type the account's name exactly to delete it."); return; }
    whileBusy(event.currentTarget, "Deleting…", async () => {
      try {
        await adminApi("DELETE", `/api/admin/accounts/${encodeURIComponent(current.account.id)}`);
        deleteDialog.close();
        say(`Deleted ${current.account.displayName}.`);
        current = null;
        show("accounts");
        await searchAccounts(false);
      } catch (error) {
        warn(explain(error));
      }
    });
  });

  // ---- the audit trail ----
  for (const name of EVENTS) $("audit-event").append(new Option(name, name));

  async function searchAudit(append) {
    const params = {
      account: $("audit-account").value.trim(), event: $("audit-event").value, since: dayStart($("audit-since").value),
      limit: "50", cursor: append ? auditCursor : null,
    };
    const page = await adminApi("GET", "/api/admin/audit" + query(params));
    const list = $("audit-list");
    if (!append) list.replaceChildren();
    for (const event of page.events) {
      const details = Object.entries(event.detail).map(([key, value]) => `${key}: ${value}`).join(" · ");
      list.append(row(element("p", "row-title", event.event), [
        `${when(event.at)} · by ${event.actor}${event.clientAddress ? " from " + event.clientAddress : ""}`,
        event.accountId ? `Account ${event.accountId}` : null,
        details || null,
      ]));
    }
    $("audit-empty").hidden = list.children.length > 0;
    auditCursor = page.next;
    $("audit-more").hidden = !page.next;
  }

  $("audit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await whileBusy($("audit-search"), "Loading…", async () => {
      try { await searchAudit(false); } catch (error) { warn(explain(error)); }
    });
  });
  $("audit-more").addEventListener("click", (event) => whileBusy(event.currentTarget, "Loading…", async () => {
    try { await searchAudit(true); } catch (error) { warn(explain(error)); }
  }));

  // ---- admin keys: for scripts; the secret shown once ----
  async function listKeys() {
    const keys = await adminApi("GET", "/api/admin/keys");
    const list = $("key-list");
    list.replaceChildren();
    const write = scopes().includes("write");
    for (const key of keys) {
      const actions = [];
      if (!key.revokedAt && write) {
        const revoke = button("Revoke", "button-small button-secondary", (event) => whileBusy(event.currentTarget, "Revoking…", async () => {
          try {
            await adminApi("DELETE", "/api/admin/keys/" + encodeURIComponent(key.id));
            say(`Revoked ${key.name}.`);
            await listKeys();
          } catch (error) {
            warn(explain(error));
          }
        }));
        revoke.setAttribute("aria-label", `Revoke key ${key.name}`);
        actions.push(revoke);
      }
      list.append(row(element("p", "row-title", `${key.name} (${key.scope})`), [
        `${key.id} · created ${when(key.createdAt)} by ${key.createdBy} · last used ${when(key.lastUsedAt)}`,
        key.revokedAt ? `Revoked ${when(key.revokedAt)}` : null,
      ], actions));
    }
    $("keys-empty").hidden = keys.length > 0;
    $("key-form").hidden = !write;
  }

  const keyDialog = modal($("key-dialog"));
  $("key-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await whileBusy($("key-create"), "Creating…", async () => {
      try {
        const made = await adminApi("POST", "/api/admin/keys", { name: $("key-name").value, scope: $("key-scope").value });
        $("key-name").value = "";
        $("key-secret").value = made.secret;
        keyDialog.open();
        $("key-secret").select();
        await listKeys();
      } catch (error) {
        warn(explain(error));
      }
    });
  });
  $("key-dialog").addEventListener("close", () => { $("key-secret").value = ""; });
  $("key-close").addEventListener("click", () => keyDialog.close());

  return {
    async keys() {
      show("keys");
      try { await listKeys(); } catch (error) { warn(explain(error)); }
    },
    async accounts() {
      show("accounts");
      try { await searchAccounts(false); } catch (error) { warn(explain(error)); }
    },
    async audit() {
      show("audit");
      try { await searchAudit(false); } catch (error) { warn(explain(error)); }
    },
  };
}
