// The "Recover your account" view (/recover). A recovery code from the service's operator — typed in, or
// read from a recovery link's fragment (/recover#CODE) and at once cleared from the address bar — is
// exchanged for a restricted session (POST api/recovery/exchange) that can do one thing: add a passkey
// (restricted-passkey.js, which also offers it through conditional create where the browser has that).
// Its token lives in this module's memory only (never in the browser's storage, never in a cookie), goes
// out as a bearer token on the two requests of the add-passkey ceremony, and is dropped as soon as the
// passkey is added or the server no longer takes it. A cancelled passkey request can be tried again
// while the session lives. Then the person signs in with the new passkey, as anyone does.

import { intlLanguage, t } from "./i18n.js";
import { api } from "./api.js";
import { restrictedPasskey } from "./restricted-passkey.js";
import { $, say, warn, whileBusy } from "./ui.js";

// { token, expiresAt: Date, account: { id, displayName } } while a restricted session is held.
let session = null;
let hooks = { explain: (e) => String(e), signIn: async () => {} };
const time = new Intl.DateTimeFormat(intlLanguage, { timeStyle: "short" });


// Whether the page was opened at …/recover (under whatever prefix the page is mounted at).
export const isRecoveryPage = () => /\/recover$/.test(location.pathname);

// The code a recovery link carried, if any. The fragment is removed from the address bar and from this
// history entry first of all, so that the code is not left where it could be seen, bookmarked or shared.
export function takeCodeFromAddress() {
  const fragment = location.hash.slice(1);
  if (location.hash !== "" || location.href.endsWith("#")) {
    history.replaceState(history.state, "", location.pathname + location.search);
  }
  try { return decodeURIComponent(fragment).trim(); } catch { return fragment.trim(); }
}

// A code as typed or pasted: the whole link is fine too (only its fragment is the code). The server
// forgives case, spaces and dashes.
function codeFrom(text) {
  const hash = text.indexOf("#");
  return (hash >= 0 ? text.slice(hash + 1) : text).trim();
}

function explain(e) {
  if (e?.name === "InvalidStateError") {
    return t("recovery.this-device-already-holds-a");
  }
  return hooks.explain(e);
}

function showStep(step, { focus = true } = {}) {
  for (const name of ["code", "add", "done"]) $(`recover-${name}-step`).hidden = name !== step;
  if (focus) $({ code: "recover-title", add: "recover-add-title", done: "recover-done-title" }[step]).focus();
}

function endSession(message) {
  session = null;
  passkey.stop();
  showStep("code");
  warn(message);
}

const passkey = restrictedPasskey({
  button: $("recover-add-passkey"),
  session: () => session,
  asking: t("recovery.your-device-will-ask-you"),
  added(result, { conditional }) {
    session = null;
    showStep("done");
    say(t("recovery.p0-name-every-other-session", { p0: conditional ? t("recovery.your-password-manager-saved-a") : t("device-approval.added-the-passkey"), name: result.passkey.name }));
  },
  over: () => endSession(t("recovery.this-recovery-session-has-ended")),
  explain,
});

async function exchange(code) {
  if (!code) {
    warn(t("recovery.type-the-recovery-code-the"));
    $("recovery-code").focus();
    return;
  }
  await whileBusy($("recover-exchange"), t("recovery.checking-the-code"), async () => {
    try {
      const result = await api("POST", "api/recovery/exchange", { code });
      session = { token: result.token, expiresAt: new Date(result.expiresAt), account: result.account };
      $("recovery-code").value = "";
      $("recover-name").textContent = session.account.displayName;
      const ends = $("recover-expires");
      ends.dateTime = session.expiresAt.toISOString();
      ends.textContent = time.format(session.expiresAt);
      showStep("add");
      say(t("recovery.the-code-was-accepted-add", { displayName: session.account.displayName }));
      passkey.offer();
    } catch (e) {
      warn(explain(e));
      $("recovery-code").focus();
    }
  });
}

// Wires the view's controls once. `explain(error)` words a failure; `signIn(button)` runs the page's
// normal passkey sign-in with `button` showing that it is busy.
export function setUpRecovery(options) {
  hooks = { ...hooks, ...options };
  for (const id of ["recover-title", "recover-add-title", "recover-done-title"]) $(id).tabIndex = -1;
  $("recover-form").addEventListener("submit", (event) => {
    event.preventDefault();
    exchange(codeFrom($("recovery-code").value));
  });
  $("recover-add-passkey").addEventListener("click", () => passkey.add());
  $("recover-login").addEventListener("click", () => hooks.signIn($("recover-login")));
}

// Shows the view; with a code (from the link) it is exchanged at once.
const pageTitle = document.title;

export function showRecovery(code = "") {
  document.title = t("recovery.brand-recover-your-account");
  $("recover").hidden = false;
  $("main").dataset.view = "recover";
  showStep(session ? "add" : "code", { focus: false });
  if (code && !session) {
    $("recovery-code").value = code;
    exchange(code);
  }
}

export function hideRecovery() {
  passkey.stop();
  document.title = pageTitle;
  $("recover").hidden = true;
}
