// The account's recent activity (`GET /api/account/events`) as sentences a person reads: what happened,
// with which passkey, from which browser and address, and when — so that a sign-in that was not theirs
// stands out. An event kind this page does not know yet still gets a sentence. Every string from the
// server goes in as text, never as HTML.

import { formatList, intlLanguage, t } from "./i18n.js";
import { scopePhrase } from "./scopes.js";
import { element } from "./ui.js";

const dateAndTime = new Intl.DateTimeFormat(intlLanguage, { dateStyle: "medium", timeStyle: "short" });
const relative = new Intl.RelativeTimeFormat(intlLanguage, { numeric: "auto" });
const operator = t("activity.the-service-s-operator");

const quoted = (name) => `“${name}”`;
const text = (value) => (typeof value === "string" && value !== "" ? value : null);

// Why a login was refused, in words; the server's code itself for one this page has no words for.
const refusals = {
  signature_invalid: t("activity.signature-did-not-verify"),
  sign_count_regression: t("activity.the-passkey-s-counter-went"),
  account_disabled: t("activity.the-account-is-disabled"),
  user_not_verified: t("activity.the-device-did-not-check"),
  user_not_present: t("activity.no-one-confirmed-on-the"),
  origin_not_allowed: t("activity.it-came-from-another-website"),
  cross_origin_not_allowed: t("activity.it-came-from-a-page"),
  top_origin_not_allowed: t("activity.it-came-from-a-page"),
  rp_id_hash_mismatch: t("activity.the-passkey-answered-for-another"),
  challenge_mismatch: t("activity.the-sign-in-request-did-not-match"),
  user_handle_mismatch: t("activity.the-passkey-belongs-to-another"),
  backup_eligibility_changed: t("activity.the-passkey-s-backup-eligibility"),
  backup_state_without_eligibility: t("activity.the-passkey-s-backup-flags"),
};

// An OpenID Connect client as the event names it: its name, else its id, else "An app".
const app = (detail) => text(detail.clientName) ?? text(detail.client) ?? t("activity.an-app");
// The scopes a consent gave, in words (scopes.js).
function scopes(detail) {
  const given = Array.isArray(detail.scopes) ? detail.scopes : text(detail.scope)?.split(" ") ?? [];
  const words = given.map(scopePhrase).filter(Boolean);
  return words.length ? formatList(words) : t("activity.who-you-are");
}

const capitalised = (sentence) => sentence.charAt(0).toLocaleUpperCase(intlLanguage) + sentence.slice(1);

// Every sentence is whole in the catalogue; one an operator did has its own key, `key` + "-by", which
// names them ({operator}).
function said(key, params, event) {
  return event.byOperator ? t(`${key}-by`, { ...params, operator }) : t(key, params);
}

// What the account's profile change touched, from the detail's `fields` ("displayName,credo"; and for
// OpenID Connect "username", "email", "emailVerified", "groups", named without their values), as a
// list in the language's words.
function profileChange(event, detail) {
  const fields = (text(detail.fields) ?? "").split(",");
  if (fields.includes("email") && detail.removed === true) return said("activity.email-address-removed", {}, event);
  const name = text(detail.displayName);
  const others = [
    fields.includes("credo") && t("activity.field-credo"), fields.includes("username") && t("activity.field-username"),
    (fields.includes("email") || fields.includes("emailVerified")) && t("activity.field-email-address"),
    fields.includes("groups") && t("activity.field-groups"),
  ].filter(Boolean);
  if (fields.includes("displayName") && name) {
    if (others.length) return said("activity.display-name-changed-and-fields", { name: quoted(name), fields: formatList(others) }, event);
    return said("activity.display-name-changed-to-p0", { p0: quoted(name) }, event);
  }
  // The fields' names are lower-case words; the sentence may start with them ("Username changed").
  if (others.length) return capitalised(said("activity.profile-fields-changed", { fields: formatList(others) }, event));
  return said("activity.profile-changed", {}, event);
}

// The event as one sentence. `name` is the passkey's name at the time (or now), `before` its name before
// a rename; either may be null.
export function describe(event, { name = null, before = null } = {}) {
  const detail = event.detail && typeof event.detail === "object" ? event.detail : {};
  const provider = text(event.provider);
  const passkey = name ? t("activity.the-passkey-p0", { p0: quoted(name) }) : t("activity.a-passkey-lower");
  const Passkey = name ? t("activity.passkey-p0", { p0: quoted(name) }) : t("activity.a-passkey");
  const reason = text(detail.code) ? refusals[text(detail.code)] ?? text(detail.code).replaceAll("_", " ") : null;
  switch (event.event) {
    case "account.created":
      return event.byOperator ? t("activity.account-created-by-operator", { operator }) : t("activity.account-created");
    case "account.created_by_operator": return t("activity.account-created-by-operator", { operator });
    case "invite.created": return t("activity.an-invitation-for-your-account", { operator });
    case "invite.used": return t("activity.invitation-used-to-make-your");
    case "invite.revoked": return said("activity.an-invitation-was-revoked", {}, event);
    case "account.updated": return profileChange(event, detail);
    case "account.deleted": return said("activity.account-deleted", {}, event);
    case "account.disabled": return event.byOperator ? t("activity.your-account-was-disabled-by", { operator }) : t("activity.your-account-was-disabled");
    case "account.enabled": return event.byOperator ? t("activity.your-account-was-enabled-again", { operator }) : t("activity.your-account-was-enabled-again-2");
    case "passkey.added":
      return provider ? said("activity.passkey-added-with-provider", { Passkey, provider }, event) : said("activity.passkey-added", { Passkey }, event);
    case "passkey.renamed": {
      const renamed = text(detail.name);
      if (!renamed) return said("activity.passkey-renamed", { Passkey }, event);
      const old = before && before !== renamed ? t("activity.passkey-p0", { p0: quoted(before) }) : t("activity.a-passkey");
      return said("activity.passkey-renamed-to", { Passkey: old, name: quoted(renamed) }, event);
    }
    case "passkey.removed": return said("activity.passkey-removed", { Passkey }, event);
    case "passkey.backup_state_changed":
      if (detail.backedUp === true) return t("activity.passkey-is-now-synced-to", { Passkey });
      if (detail.backedUp === false) return t("activity.passkey-is-no-longer-synced", { Passkey });
      return t("activity.passkey-changed-how-it-is", { Passkey });
    case "login.succeeded": return t("activity.signed-in-with-p0", { p0: provider ?? passkey });
    case "login.refused": {
      const used = name ? passkey : provider;
      if (used && reason) return t("activity.refused-sign-in-with-reason", { p0: used, reason });
      if (used) return t("activity.refused-sign-in-with", { p0: used });
      if (reason) return t("activity.refused-sign-in-reason", { reason });
      return t("activity.refused-sign-in");
    }
    case "login.possible_clone":
      return t("activity.the-signature-counter-of-p0", { p0: provider ?? passkey });
    case "session.ended": return t("activity.signed-out");
    case "sessions.revoked": return event.byOperator ? t("activity.every-session-was-ended-by", { operator }) : t("activity.signed-out-everywhere");
    case "access_token.issued": return t("activity.an-access-token-was-issued");
    case "passkey.refused":
      return text(detail.rule) ? t("activity.a-passkey-was-refused-by-rule", { rule: text(detail.rule) }) : t("activity.a-passkey-was-refused-by");
    case "passkey.counter_reset": return t("activity.passkey-moved-to-a-password", { Passkey });
    case "recovery.issued":
      return detail.by === "email" ? t("activity.a-recovery-link-was-asked") : t("activity.a-recovery-code-was-issued", { operator });
    case "recovery.email_sent": return t("activity.a-recovery-link-was-emailed");
    case "account.email_verified": return t("activity.email-address-confirmed");
    case "recovery.revoked": return said("activity.a-recovery-code-was-revoked", {}, event);
    case "recovery.exchanged": return t("activity.a-recovery-code-was-used");
    case "recovery.completed": return t("activity.passkey-added-with-a-recovery", { Passkey });
    case "recovery.refused": return t("activity.a-recovery-code-was-refused");
    case "device_request.approved":
      return text(detail.device) ? t("activity.a-new-device-was-let-in-device", { device: text(detail.device) }) : t("activity.a-new-device-was-let");
    case "device_request.denied": return t("activity.a-new-device-s-request");
    case "device_request.completed": return t("activity.passkey-added-on-a-new", { Passkey });
    case "oidc.authorized": return t("activity.signed-in-to-p0", { p0: app(detail) });
    case "oidc.consent_given": return t("activity.allowed-p0-to-know-p1", { p0: app(detail), p1: scopes(detail) });
    case "oidc.code_exchanged": return t("activity.p0-picked-up-its-sign", { p0: app(detail) });
    case "oidc.code_reused": return t("activity.a-sign-in-code-for", { p0: app(detail) });
    case "oidc.refresh_rotated": return t("activity.p0-renewed-its-access", { p0: app(detail) });
    case "oidc.refresh_reused": return t("activity.an-old-token-of-p0", { p0: app(detail) });
    case "oidc.grant_revoked": return said("activity.access-of-p0-was-ended", { p0: app(detail) }, event);
    case "oidc.logout": return t("activity.signed-out-from-p0", { p0: app(detail) });
    case "admin.granted":
      if (detail.setup === true) return t("activity.you-were-made-an-administrator-setup");
      return said("activity.you-were-made-an-administrator", {}, event);
    case "admin.revoked": return said("activity.you-are-no-longer-an", {}, event);
    case "console.signed_in": return t("activity.signed-in-to-the-admin-console");
    default: {
      // A kind newer than this page: said plainly, with its name, never an error.
      const kind = text(event.event) ?? "unknown";
      return said("activity.account-event-p0", { p0: kind.replaceAll(/[._]/g, " ") }, event);
    }
  }
}

// Sign-ins that were refused or look copied: worth a second look.
const alerts = new Set([
  "login.refused", "login.possible_clone", "recovery.issued", "recovery.email_sent", "recovery.exchanged", "recovery.refused", "oidc.code_reused",
  "oidc.refresh_reused", "admin.granted",
]);

// Where the event came from: "Chrome on Linux, 127.0.0.1"; nothing for an operator's action.
function where(event) {
  if (event.byOperator) return "";
  return [text(event.device), text(event.clientAddress)].filter(Boolean).join(", ");
}

// "5 minutes ago" within a week, the date and time beyond (both in the browser's language).
function when(at, now) {
  const seconds = Math.min(0, Math.round((at - now) / 1000)) || 0;
  const steps = [[60, "second"], [60, "minute"], [24, "hour"], [7, "day"]];
  let value = seconds;
  for (const [size, unit] of steps) {
    if (Math.abs(value) < size) return relative.format(value, unit);
    value = Math.trunc(value / size);
  }
  return dateAndTime.format(at);
}

function time(event, now) {
  const at = new Date(event.at);
  if (Number.isNaN(at.getTime())) return element("span", "", t("activity.at-an-unknown-time"));
  const node = element("time", "", when(at, now));
  node.dateTime = at.toISOString();
  node.title = dateAndTime.format(at);
  return node;
}

// The passkey's name at each event (from the loaded events, oldest first, then the current list for a
// passkey whose naming happened before the loaded pages), and before each rename.
function passkeyNames(events, passkeys) {
  const current = new Map(passkeys.map((p) => [p.id, p.name]));
  const known = new Map();
  const names = new Map();
  for (const event of [...events].reverse()) {
    const id = text(event.passkeyId);
    if (!id) continue;
    const before = known.get(id) ?? null;
    const named = text(event.detail?.name);
    if (named && ["passkey.added", "passkey.renamed", "passkey.removed"].includes(event.event)) known.set(id, named);
    names.set(event, { name: known.get(id) ?? current.get(id) ?? null, before });
  }
  return names;
}

// Shows `events` (newest first) in `list`; the items are drawn again from scratch each time.
export function renderActivity(list, events, passkeys) {
  const names = passkeyNames(events, passkeys);
  const now = Date.now();
  list.replaceChildren(...events.map((event) => {
    const row = element("li", alerts.has(event.event) ? "activity activity-alert" : "activity");
    row.tabIndex = -1;
    const from = where(event);
    const what = describe(event, names.get(event));
    row.append(element("p", "activity-what", from ? t("activity.sentence-from", { sentence: what, from }) : what));
    const meta = element("p", "activity-meta");
    meta.append(time(event, now));
    row.append(meta);
    return row;
  }));
}
