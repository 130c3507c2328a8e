// The "You are invited" view (/invite). An invitation's code — read from its link's fragment
// (/invite#CODE, at once cleared from the address bar) or typed in — is shown first for what it is
// (POST api/invites/preview: the service, the username, email and groups the account gets), without using
// it. "Create your passkey" then uses it (POST api/invites/exchange): the account is made and a restricted
// session opened on it that can do one thing, add the account's first passkey (restricted-passkey.js). As
// with a recovery, its token lives in this module's memory only and goes out as a bearer token on the
// add-passkey ceremony's two requests; a cancelled passkey request can be tried again while it lives. Then
// the person signs in with the new passkey, as anyone does.

import { intlLanguage, t } from "./i18n.js";
import { api } from "./api.js";
import { restrictedPasskey } from "./restricted-passkey.js";
import { $, say, warn, whileBusy } from "./ui.js";

// The code being looked at, what the server said of it, and the restricted session once it was used.
let code = "";
let invitation = null;
let session = null;
let hooks = { explain: (e) => String(e), signIn: async () => {} };
const time = new Intl.DateTimeFormat(intlLanguage, { dateStyle: "medium", timeStyle: "short" });
const pageTitle = document.title;

// Whether the page was opened at …/invite (under whatever prefix the page is mounted at).
export const isInvitePage = () => /\/invite$/.test(location.pathname);

// A code as typed or pasted: the whole link is fine too (only its fragment is the code).
function codeFrom(text) {
  const hash = text.indexOf("#");
  return (hash >= 0 ? text.slice(hash + 1) : text).trim();
}

function explain(e) {
  if (e?.name === "InvalidStateError") {
    return t("invitation.this-device-already-holds-a");
  }
  return hooks.explain(e);
}

function showStep(step, { focus = true } = {}) {
  for (const name of ["code", "create", "done"]) $(`invite-${name}-step`).hidden = name !== step;
  document.body.dataset.invite = step;
  if (focus) $({ code: "invite-title", create: "invite-create-title", done: "invite-done-title" }[step]).focus();
}

// One fact of the invitation, or its row hidden when it has none.
function fact(name, value) {
  $(`invite-${name}`).textContent = value ?? "";
  $(`invite-${name}`).hidden = !value;
  $(`invite-${name}-term`).hidden = !value;
}

function ended(message) {
  session = null;
  invitation = null;
  passkey.stop();
  showStep("code");
  warn(message);
}

const passkey = restrictedPasskey({
  button: $("invite-create"),
  session: () => session,
  asking: t("invitation.your-device-will-ask-you"),
  added(result, { conditional }) {
    session = null;
    code = "";
    showStep("done");
    say(t("invitation.p0-name-sign-in-with", { p0: conditional ? t("invitation.your-password-manager-saved-your") : t("invitation.your-passkey-was-saved"), name: result.passkey.name }));
  },
  over: () => ended(t("invitation.this-invitation-can-no-longer")),
  explain,
});

// Looks the code up without using it, and shows who the invitation is for.
async function open(text) {
  if (!text) {
    warn(t("invitation.type-the-invitation-code-or"));
    $("invite-code").focus();
    return;
  }
  await whileBusy($("invite-open"), t("invitation.checking-the-invitation"), async () => {
    try {
      invitation = await api("POST", "api/invites/preview", { code: text }, { anonymous: true });
      code = text;
      $("invite-code").value = "";
      $("invite-service").textContent = invitation.service;
      $("invite-origin").textContent = `at ${invitation.origin}`;
      fact("username", invitation.username);
      fact("email", invitation.email);
      fact("groups", invitation.groups.length ? invitation.groups.join(", ") : null);
      // An operator made the account: it has its name. A new account's name is the person's to give.
      $("invite-name-field").hidden = !invitation.newAccount;
      $("invite-name").value = invitation.newAccount ? (invitation.username ?? "") : "";
      const until = new Date(invitation.expiresAt);
      $("invite-expires").dateTime = until.toISOString();
      $("invite-expires").textContent = time.format(until);
      showStep("create");
      say(t("invitation.this-invitation-is-for-p0", { p0: invitation.displayName ?? invitation.username ?? invitation.email ?? t("invitation.a-new-account"), service: invitation.service }));
    } catch (e) {
      invitation = null;
      showStep("code", { focus: false });
      warn(explain(e));
      $("invite-code").focus();
    }
  });
}

// Uses the invitation (once: a cancelled passkey request keeps the session), then asks for the passkey.
async function create() {
  if (!session) {
    const displayName = $("invite-name").value.trim();
    if (invitation?.newAccount && !displayName) {
      warn(t("invitation.type-your-name-the-service"));
      $("invite-name").focus();
      return;
    }
    await whileBusy($("invite-create"), t("invitation.making-your-account"), async () => {
      try {
        const body = invitation?.newAccount ? { code, displayName } : { code };
        const result = await api("POST", "api/invites/exchange", body, { anonymous: true });
        session = { token: result.token, expiresAt: new Date(result.expiresAt), account: result.account };
        $("invite-name-field").hidden = true;
      } catch (e) {
        warn(explain(e));
      }
    });
  }
  if (session) await passkey.add();
}

// Wires the view's controls once. `explain(error)` words a failure; `signIn(button)` runs the page's
// normal passkey sign-in with `button` showing that it is busy.
export function setUpInvitation(options) {
  hooks = { ...hooks, ...options };
  for (const id of ["invite-title", "invite-create-title", "invite-done-title"]) $(id).tabIndex = -1;
  $("invite-form").addEventListener("submit", (event) => {
    event.preventDefault();
    open(codeFrom($("invite-code").value));
  });
  $("invite-create").addEventListener("click", create);
  $("invite-login").addEventListener("click", () => hooks.signIn($("invite-login")));
}

// Shows the view; with a code (from the link) it is looked up at once.
export function showInvitation(text = "") {
  document.title = t("invitation.brand-you-are-invited");
  $("invite").hidden = false;
  $("main").dataset.view = "invite";
  showStep(session ? "create" : "code", { focus: false });
  if (text && !session) {
    $("invite-code").value = text;
    open(text);
  }
}

export function hideInvitation() {
  passkey.stop();
  document.title = pageTitle;
  $("invite").hidden = true;
}
