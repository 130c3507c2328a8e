// Email for recovery, where the server sends mail (--smtp-url): the account view's "Email address" card
// (give an address, a confirmation link is mailed to it; remove it), the confirmation itself (the link
// …/verify-email#TOKEN: the token is read and cleared from the address bar at once, kept in this
// module's memory only, and sent once the person is signed in to the account it was made for), and on
// the recovery view "Email me a recovery link" (where the server mails them, --recovery-email). The
// server answers that last request the same whether or not it knows the address; so does this page.

import { t } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { $, say, warn, whileBusy } from "./ui.js";

let hooks = { explain: (e) => String(e), changed: () => {}, confirmItIsYou: async () => false };
// GET api/account/email while the account view is shown: { email, verified, mail, recovery }.
let current = null;
// A confirmation link's token, until it has been sent (once signed in).
let pendingToken = "";

// Whether the page was opened at …/verify-email (under whatever prefix the page is mounted at).
export const isVerifyEmailPage = () => /\/verify-email$/.test(location.pathname);

// Reads the confirmation link's token and removes it from the address bar and this history entry, so
// that it is not left where it could be seen, bookmarked or shared. True when there was one.
export function takeTokenFromAddress() {
  const fragment = location.hash.slice(1).trim();
  if (location.hash !== "" || location.href.endsWith("#")) {
    history.replaceState(history.state, "", location.pathname + location.search);
  }
  pendingToken = /^[A-Za-z0-9_-]{43}$/.test(fragment) ? fragment : "";
  return pendingToken !== "";
}

export const hasPendingConfirmation = () => pendingToken !== "";

// ---- the account view's card ----

// `request()` once more after a fresh sign-in, when the server asks for one (a verified address can add a
// passkey, so changing it needs a sign-in as recent as adding a passkey does). Undefined when the person
// signed in to another account instead.
async function withRecentSignIn(request) {
  try {
    return await request();
  } catch (e) {
    if (!(e instanceof ApiError && e.code === "recent_sign_in_required")) throw e;
  }
  if (!await hooks.confirmItIsYou(t("email.confirm-your-email-address-from"))) return undefined;
  return await request();
}

function render() {
  const known = current?.email ?? null;
  $("email-card").hidden = !current || (!current.mail && !known);
  if (!current) return;
  $("email-hint").textContent = current.recovery
    ? t("email.if-you-ever-lose-all")
    : t("email.apps-you-sign-in-to");
  $("email-tradeoff").hidden = !current.recovery;
  $("email-state").hidden = !known;
  $("email-current").textContent = known ?? "";
  $("email-status").textContent = current.verified ? t("email.confirmed") : t("email.not-confirmed-yet");
  $("email-form").hidden = !current.mail;
  $("email-label").textContent = known ? t("email.a-new-email-address") : t("email.your-email-address");
  $("email-save").textContent = known && !current.verified ? t("email.send-the-confirmation-link-again") : t("email.send-a-confirmation-link");
  $("email-remove").hidden = !known;
  if (known && !current.verified && $("email-address").value === "") $("email-address").value = known;
}

// Shows the card for the signed-in account, then sends a pending confirmation (from …/verify-email).
export async function showEmail() {
  try {
    current = await api("GET", "api/account/email");
  } catch (e) {
    current = null;
    console.info("Latchkey: the account's email address could not be read:", e?.message ?? e);
  }
  render();
  if (pendingToken) await confirm();
}

export function hideEmail() {
  current = null;
  $("email-address").value = "";
  render();
}

async function save(event) {
  event.preventDefault();
  const address = $("email-address").value.trim();
  if (!address) {
    warn(t("email.type-the-email-address-to"));
    $("email-address").focus();
    return;
  }
  await whileBusy($("email-save"), t("app.sending"), async () => {
    try {
      const changed = await withRecentSignIn(() => api("PUT", "api/account/email", { email: address }));
      if (!changed) return;
      current = changed;
      $("email-address").value = "";
      render();
      say(current.verified
        ? t("email.email-is-already-your-confirmed", { email: current.email })
        : t("email.a-confirmation-link-is-on", { email: current.email }));
      hooks.changed();
    } catch (e) {
      warn(hooks.explain(e));
      $("email-address").focus();
    }
  });
  render();  // the button's words too, which whileBusy gave back as they were
}

async function remove() {
  await whileBusy($("email-remove"), t("app-list.removing"), async () => {
    try {
      await api("DELETE", "api/account/email");
      current = { ...current, email: null, verified: false };
      $("email-address").value = "";
      render();
      say(t("email.your-email-address-was-removed"));
      $("email-address").focus();
      hooks.changed();
    } catch (e) { warn(hooks.explain(e)); }
  });
  render();
}

// Sends the confirmation link's token. Opened with the page (no click), a request for a fresh sign-in is
// not answered with a passkey prompt (browsers may refuse one without a gesture): the token is kept and
// "Confirm the address" asks for the passkey when pressed.
async function confirm({ pressed = false } = {}) {
  const token = pendingToken;
  pendingToken = "";
  $("email-confirm").hidden = true;
  try {
    const send = () => api("POST", "api/account/email/verify", { token });
    const confirmed = pressed ? await withRecentSignIn(send) : await send();
    if (!confirmed) return;
    current = confirmed;
    $("email-address").value = "";  // it held the address while it waited for confirmation
    render();
    say(t("email.your-email-address-email-is", { email: current.email }));
    hooks.changed();
  } catch (e) {
    if (!pressed && e instanceof ApiError && e.code === "recent_sign_in_required") {
      pendingToken = token;
      $("email-confirm").hidden = false;
      say(t("email.to-confirm-your-email-address"));
      $("email-confirm").focus();
      return;
    }
    warn(hooks.explain(e));
  }
  $("email-title").focus();
}

// ---- the recovery view's "Email me a recovery link" ----

// Shows the form when the server mails recovery links.
export async function offerRecoveryEmail() {
  try {
    const { enabled } = await api("GET", "api/recovery/email");
    $("recover-email-form").hidden = !enabled;
  } catch {
    $("recover-email-form").hidden = true;
  }
}

async function requestRecoveryLink(event) {
  event.preventDefault();
  const address = $("recover-email").value.trim();
  if (!address) {
    warn(t("email.type-the-email-address-you"));
    $("recover-email").focus();
    return;
  }
  await whileBusy($("recover-email-send"), t("app.sending"), async () => {
    try {
      await api("POST", "api/recovery/email", { email: address });
      say(t("email.if-address-is-the-confirmed", { address })
        + t("email.it-works-once-for-an"));
    } catch (e) {
      warn(hooks.explain(e));
      $("recover-email").focus();
    }
  });
}

// Wires the controls once. `explain(error)` words a failure; `changed()` after the account's history grew.
export function setUpEmail(options) {
  hooks = { ...hooks, ...options };
  $("email-title").tabIndex = -1;
  $("email-form").addEventListener("submit", save);
  $("email-remove").addEventListener("click", remove);
  $("email-confirm").addEventListener("click", () => whileBusy($("email-confirm"), t("email.confirming"), () => confirm({ pressed: true })));
  $("recover-email-form").addEventListener("submit", requestRecoveryLink);
}
