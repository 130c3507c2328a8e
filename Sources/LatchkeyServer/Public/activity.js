// The account's recent activity (`GET /api/account/events`) as sentences a person reads: what happened,
// with which passkey, from which browser and address, and when — so that a sign-in that was not theirs
// stands out. An event kind this page does not know yet still gets a sentence. Every string from the
// server goes in as text, never as HTML.

import { scopePhrase } from "./scopes.js";
import { element } from "./ui.js";

const dateAndTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const operator = "the service’s operator";

const quoted = (name) => `“${name}”`;
const text = (value) => (typeof value === "string" && value !== "" ? value : null);

// Why a login was refused, in words; the server's code itself for one this page has no words for.
const refusals = {
  signature_invalid: "signature did not verify",
  sign_count_regression: "the passkey’s counter went backwards, so it may have been copied",
  account_disabled: "the account is disabled",
  user_not_verified: "the device did not check it was you",
  user_not_present: "no one confirmed on the device",
  origin_not_allowed: "it came from another website",
  cross_origin_not_allowed: "it came from a page embedded in another website",
  top_origin_not_allowed: "it came from a page embedded in another website",
  rp_id_hash_mismatch: "the passkey answered for another website",
  challenge_mismatch: "the sign-in request did not match",
  user_handle_mismatch: "the passkey belongs to another account",
  backup_eligibility_changed: "the passkey’s backup eligibility changed",
  backup_state_without_eligibility: "the passkey’s backup flags contradict each other",
};

// An OpenID Connect client as the event names it: its name, else its id, else "An app".
const app = (detail) => text(detail.clientName) ?? text(detail.client) ?? "An app";
// The scopes a consent gave, in words (scopes.js).
function scopes(detail) {
  const given = Array.isArray(detail.scopes) ? detail.scopes : text(detail.scope)?.split(" ") ?? [];
  const words = given.map(scopePhrase).filter(Boolean);
  return words.length ? words.join(", ") : "who you are";
}

function refusal(code) {
  if (!code) return "";
  return ` (${refusals[code] ?? code.replaceAll("_", " ")})`;
}

// What the account's profile change touched, from the detail's `fields` ("displayName,credo"; and for
// OpenID Connect "username", "email", "emailVerified", "groups", named without their values).
function profileChange(detail) {
  const fields = (text(detail.fields) ?? "").split(",");
  if (fields.includes("email") && detail.removed === true) return "Email address removed";
  const name = text(detail.displayName);
  const others = [
    fields.includes("credo") && "credo", fields.includes("username") && "username",
    (fields.includes("email") || fields.includes("emailVerified")) && "email address", fields.includes("groups") && "groups",
  ].filter(Boolean);
  const rest = others.length > 1 ? `${others.slice(0, -1).join(", ")} and ${others.at(-1)}` : others[0];
  if (fields.includes("displayName") && name) {
    return `Display name changed to ${quoted(name)}` + (rest ? ` and ${rest} changed` : "");
  }
  if (rest) return `${rest[0].toUpperCase()}${rest.slice(1)} changed`;
  return "Profile changed";
}

// The event as one sentence. `name` is the passkey's name at the time (or now), `before` its name before
// a rename; either may be null.
export function describe(event, { name = null, before = null } = {}) {
  const detail = event.detail && typeof event.detail === "object" ? event.detail : {};
  const provider = text(event.provider);
  const passkey = name ? `the passkey ${quoted(name)}` : "a passkey";
  const Passkey = name ? `Passkey ${quoted(name)}` : "A passkey";
  const by = event.byOperator ? ` by ${operator}` : "";
  switch (event.event) {
    case "account.created": return "Account created" + by;
    case "account.created_by_operator": return `Account created by ${operator}`;
    case "invite.created": return `An invitation for your account was made by ${operator}`;
    case "invite.used": return "Invitation used to make your account ready for its first passkey";
    case "invite.revoked": return "An invitation for your account was revoked" + by;
    case "account.updated": return profileChange(detail) + by;
    case "account.deleted": return "Account deleted" + by;
    case "account.disabled": return event.byOperator ? `Your account was disabled by ${operator}` : "Your account was disabled";
    case "account.enabled": return event.byOperator ? `Your account was enabled again by ${operator}` : "Your account was enabled again";
    case "passkey.added": return `${Passkey} added` + (provider ? ` (${provider})` : "") + by;
    case "passkey.renamed": {
      const renamed = text(detail.name);
      if (!renamed) return `${Passkey} renamed` + by;
      return (before && before !== renamed ? `Passkey ${quoted(before)}` : "A passkey") + ` renamed to ${quoted(renamed)}` + by;
    }
    case "passkey.removed": return `${Passkey} removed` + by;
    case "passkey.backup_state_changed":
      if (detail.backedUp === true) return `${Passkey} is now synced to your other devices`;
      if (detail.backedUp === false) return `${Passkey} is no longer synced: it lives on one device only`;
      return `${Passkey} changed how it is backed up`;
    case "login.succeeded": return "Signed in with " + (provider ?? passkey);
    case "login.refused": return "Refused sign-in" + (name || provider ? ` with ${name ? passkey : provider}` : "") + refusal(text(detail.code));
    case "login.possible_clone":
      return `The signature counter of ${provider ?? passkey} went backwards: the passkey may have been copied`;
    case "session.ended": return "Signed out";
    case "sessions.revoked": return event.byOperator ? `Every session was ended by ${operator}` : "Signed out everywhere";
    case "access_token.issued": return "An access token was issued for another service";
    case "passkey.refused": return "A passkey was refused by this service's rules" + (text(detail.rule) ? `: ${text(detail.rule)}` : "");
    case "passkey.counter_reset": return `${Passkey} moved to a password manager that does not count sign-ins; its counter was reset`;
    case "recovery.issued":
      return detail.by === "email" ? "A recovery link was asked for with your email address" : `A recovery code was issued by ${operator}`;
    case "recovery.email_sent": return "A recovery link was emailed to your address";
    case "account.email_verified": return "Email address confirmed";
    case "recovery.revoked": return "A recovery code was revoked" + by;
    case "recovery.exchanged": return "A recovery code was used to start adding a passkey";
    case "recovery.completed": return `${Passkey} added with a recovery code; every other session was signed out`;
    case "recovery.refused": return "A recovery code was refused";
    case "device_request.approved": return "A new device was let in" + (text(detail.device) ? ` (${text(detail.device)})` : "");
    case "device_request.denied": return "A new device's request to sign in was refused";
    case "device_request.completed": return `${Passkey} added on a new device you let in`;
    case "oidc.authorized": return `Signed in to ${app(detail)}`;
    case "oidc.consent_given": return `Allowed ${app(detail)} to know ${scopes(detail)}`;
    case "oidc.code_exchanged": return `${app(detail)} picked up its sign-in`;
    case "oidc.code_reused": return `A sign-in code for ${app(detail)} was used twice; that app's access was ended`;
    case "oidc.refresh_rotated": return `${app(detail)} renewed its access`;
    case "oidc.refresh_reused": return `An old token of ${app(detail)} was used again; that app's access was ended`;
    case "oidc.grant_revoked": return `Access of ${app(detail)} was ended` + by;
    case "oidc.logout": return `Signed out from ${app(detail)}`;
    case "admin.granted": return "You were made an administrator" + (detail.setup === true ? " with the server's setup link" : by);
    case "admin.revoked": return "You are no longer an administrator" + by;
    case "console.signed_in": return "Signed in to the admin console";
    default: {
      // A kind newer than this page: said plainly, with its name, never an error.
      const kind = text(event.event) ?? "unknown";
      return `Account event: ${kind.replaceAll(/[._]/g, " ")}` + by;
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
  if (Number.isNaN(at.getTime())) return element("span", "", "at an unknown time");
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
    row.append(element("p", "activity-what", describe(event, names.get(event)) + (from ? ` — ${from}` : "")));
    const meta = element("p", "activity-meta");
    meta.append(time(event, now));
    row.append(meta);
    return row;
  }));
}
