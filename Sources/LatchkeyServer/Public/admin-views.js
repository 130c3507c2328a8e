// The console's views over the admin API: finding accounts (a page at a time, by cursor), one account's
// page (passkeys, sessions, groups, recent activity and the operator's actions), and the audit trail.
// Every text from the server goes in as textContent, never as markup.

import { formatDate, t } from "./i18n.js";
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

const when = (iso) => (iso ? formatDate(new Date(iso)) : t("admin-views.never"));
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
      open.setAttribute("aria-label", t("admin-views.displayname-p1", { displayName: account.displayName, p1: account.disabledAt ? t("admin-views.disabled") : t("admin-views.enabled") }));
      list.append(row(open, [
        t("admin-views.account-summary", { passkeys: t("admin-views.passkey-count", { count: account.passkeys }), sessions: t("admin-views.session-count", { count: account.sessions }), when: when(account.lastLoginAt) }),
        account.disabledAt ? t("admin-views.disabled-p0", { p0: when(account.disabledAt) }) : null,
        account.id,
      ]));
    }
    $("results-empty").hidden = list.children.length > 0;
    accountsCursor = page.next;
    $("accounts-more").hidden = !page.next;
  }

  $("search-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await whileBusy($("search"), t("admin-views.searching"), async () => {
      try { await searchAccounts(false); } catch (error) { warn(explain(error)); }
    });
  });
  $("accounts-more").addEventListener("click", (event) => whileBusy(event.currentTarget, t("app.loading"), async () => {
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
    $("account-state").textContent = account.disabledAt ? t("admin-views.disabled-since-p0", { p0: when(account.disabledAt) }) : t("admin-views.enabled-state");
    $("account-state").classList.toggle("state-disabled", Boolean(account.disabledAt));
    const facts = $("account-facts");
    facts.replaceChildren();
    fact(facts, t("admin-views.id"), account.id);
    fact(facts, t("admin-views.created"), when(account.createdAt));
    fact(facts, t("admin-views.last-sign-in"), when(account.lastLoginAt));
    fact(facts, t("admin-views.username"), detail.username ?? t("admin-views.none"));
    fact(facts, t("admin-views.email"), detail.email
      ? t(detail.emailVerified ? "admin-views.email-verified" : "admin-views.email-not-verified", { email: detail.email }) : t("admin-views.none"));
    fact(facts, t("admin-views.groups"), detail.groups.length ? detail.groups.join(", ") : t("admin-views.none"));

    const write = scopes().includes("write");
    $("account-disable").textContent = account.disabledAt ? t("admin-views.enable") : t("admin-views.disable");
    $("disable-text").textContent = account.disabledAt
      ? t("admin-views.the-account-is-disabled-enable")
      : t("console.disable-text");
    for (const id of ["account-disable", "account-revoke-sessions", "account-delete"]) $(id).hidden = !write;
    $("recovery-setting").hidden = !scopes().includes("recovery");

    const passkeys = $("account-passkeys");
    passkeys.replaceChildren();
    for (const passkey of detail.passkeys) {
      const remove = button(t("passkey-list.remove"), "button-small button-secondary", (event) => removePasskey(event.currentTarget, passkey, detail.passkeys.length));
      remove.setAttribute("aria-label", t("admin-views.remove-passkey-name", { name: passkey.name }));
      remove.hidden = !write;
      passkeys.append(row(element("p", "row-title", passkey.name), [
        t("admin-views.p0-p1", { p0: passkey.provider?.name ?? t("passkey-list.unknown-provider"), p1: passkey.backupEligible ? t("admin-views.synced") : t("admin-views.device-bound") }),
        t("admin-views.added-p0-last-used-p1", { p0: when(passkey.createdAt), p1: when(passkey.lastUsedAt) }),
      ], [remove]));
    }
    if (!detail.passkeys.length) passkeys.append(element("li", "row hint", t("admin-views.no-passkey-the-person-needs")));

    const sessions = $("account-sessions");
    sessions.replaceChildren();
    for (const s of detail.sessions) {
      sessions.append(row(element("p", "row-title", t("admin-views.session-sid", { sid: s.sid })), [
        t(s.userVerified ? "admin-views.since-until-user-verified" : "admin-views.since-until", { p0: when(s.createdAt), p1: when(s.expiresAt) }),
      ]));
    }
    if (!detail.sessions.length) sessions.append(element("li", "row hint", t("admin-views.no-live-session")));

    const activity = $("account-activity");
    activity.replaceChildren();
    for (const event of events) {
      activity.append(row(element("p", "row-title", event.event), [
        t(event.clientAddress ? "admin-views.at-by-actor-from" : "admin-views.at-by-actor", { p0: when(event.at), actor: event.actor, address: event.clientAddress }),
      ]));
    }
    if (!events.length) activity.append(element("li", "row hint", t("admin-views.nothing-recorded")));
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
    act(event.currentTarget, disabled ? t("admin-views.enabling") : t("admin-views.disabling"), () => adminApi("POST", path),
      disabled ? t("admin-views.enabled-the-person-can-sign") : t("admin-views.disabled-the-person-s-sessions"));
  });
  $("account-revoke-sessions").addEventListener("click", (event) => {
    act(event.currentTarget, t("admin-views.ending-sessions"), () => adminApi("DELETE", `/api/admin/accounts/${encodeURIComponent(current.account.id)}/sessions`),
      t("admin-views.every-session-of-this-account"));
  });

  async function removePasskey(target, passkey, count) {
    const last = count === 1 ? "?allowLast=true" : "";
    if (last && !confirm(t("admin-views.name-is-the-account-s", { name: passkey.name }))) return;
    await act(target, t("app-list.removing"), () => adminApi("DELETE", `/api/admin/passkeys/${encodeURIComponent(passkey.id)}${last}`), t("admin-views.removed-name", { name: passkey.name }));
  }

  // The recovery code: shown once, in a dialog, never kept.
  const recoveryDialog = modal($("recovery-dialog"));
  $("account-recovery").addEventListener("click", (event) => whileBusy(event.currentTarget, t("admin-views.issuing"), async () => {
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
    try { await navigator.clipboard.writeText($("recovery-link").value); say(t("admin-views.link-copied")); } catch { $("recovery-link").select(); }
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
    if (isUnavailable(event.currentTarget)) { warn(t("admin-views.type-the-account-s-name")); return; }
    whileBusy(event.currentTarget, t("app.deleting"), async () => {
      try {
        await adminApi("DELETE", `/api/admin/accounts/${encodeURIComponent(current.account.id)}`);
        deleteDialog.close();
        say(t("admin-views.deleted-displayname", { displayName: current.account.displayName }));
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
      const details = Object.entries(event.detail).map(([key, value]) => t("admin-views.key-value", { key, value })).join(" · ");
      list.append(row(element("p", "row-title", event.event), [
        t(event.clientAddress ? "admin-views.at-by-actor-from" : "admin-views.at-by-actor", { p0: when(event.at), actor: event.actor, address: event.clientAddress }),
        event.accountId ? t("admin-views.account-accountid", { accountId: event.accountId }) : null,
        details || null,
      ]));
    }
    $("audit-empty").hidden = list.children.length > 0;
    auditCursor = page.next;
    $("audit-more").hidden = !page.next;
  }

  $("audit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await whileBusy($("audit-search"), t("app.loading"), async () => {
      try { await searchAudit(false); } catch (error) { warn(explain(error)); }
    });
  });
  $("audit-more").addEventListener("click", (event) => whileBusy(event.currentTarget, t("app.loading"), async () => {
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
        const revoke = button(t("admin-views.revoke"), "button-small button-secondary", (event) => whileBusy(event.currentTarget, t("admin-views.revoking"), async () => {
          try {
            await adminApi("DELETE", "/api/admin/keys/" + encodeURIComponent(key.id));
            say(t("admin-views.revoked-name", { name: key.name }));
            await listKeys();
          } catch (error) {
            warn(explain(error));
          }
        }));
        revoke.setAttribute("aria-label", t("admin-views.revoke-key-name", { name: key.name }));
        actions.push(revoke);
      }
      list.append(row(element("p", "row-title", t("admin-views.name-scope", { name: key.name, scope: key.scope })), [
        t("admin-views.id-created-p1-by-createdby", { id: key.id, p1: when(key.createdAt), createdBy: key.createdBy, p3: when(key.lastUsedAt) }),
        key.revokedAt ? t("admin-views.revoked-p0", { p0: when(key.revokedAt) }) : null,
      ], actions));
    }
    $("keys-empty").hidden = keys.length > 0;
    $("key-form").hidden = !write;
  }

  const keyDialog = modal($("key-dialog"));
  $("key-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await whileBusy($("key-create"), t("admin-views.creating"), async () => {
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
