// Latchkey's page: sign up and sign in with the browser's own passkeys, then the account; at …/recover,
// getting back in with a recovery code (recovery.js); at …/invite, making an account with an invitation
// (invitation.js). The rule for messages: only what the person
// started may report a failure. The background autofill request (passkey autofill in the name field) ends
// quietly, whatever happens to it.

import { formatList, language, setUpPicker, t } from "./i18n.js";
import { renderActivity } from "./activity.js";
import { api, ApiError } from "./api.js";
import { renderApps } from "./app-list.js";
import { hideNewDevice, resetApproval, setUpDeviceApproval } from "./device-approval.js";
import {
  hasPendingConfirmation, hideEmail, isVerifyEmailPage, offerRecoveryEmail, setUpEmail, showEmail, takeTokenFromAddress,
} from "./email.js";
import { hideInvitation, isInvitePage, setUpInvitation, showInvitation } from "./invitation.js";
import { forwardAuth, isForwardAuthPage } from "./forward-auth.js";
import { renderPasskeys } from "./passkey-list.js";
import { authorize, device, endSession, isAuthorizePage, isDevicePage, isEndSessionPage } from "./oidc.js";
import { hideRecovery, isRecoveryPage, setUpRecovery, showRecovery, takeCodeFromAddress } from "./recovery.js";
import { $, clearMessages, countCharacters, isUnavailable, modal, say, setUnavailable, warn, whileBusy } from "./ui.js";
import {
  capabilities, creationOptions, credentialJSON, immediateRequest, requestOptions,
  signalAllAcceptedCredentials, signalCurrentUserDetails, signalUnknownCredential,
} from "./webauthn.js";

let account = null;
let passkeys = [];
// The recent activity shown so far (newest first), the cursor of the page after it, and a counter that
// makes a reply to an earlier request (another account, a list since reloaded) be dropped.
let activity = { events: [], next: null, generation: 0 };
let rpId = location.hostname;
let browser = { webauthn: false, conditionalGet: false, immediateGet: false, conditionalCreate: false, secureContext: true };
let conditional = null;
// Whether Log in still tries the immediate sign-in first (only where the browser has it). Once an immediate
// request has failed with NotAllowedError — no passkey at hand, or the person closed the chooser: the
// browser does not say which — Log in shows the browser's usual dialog until the page is loaded again.
let immediateFirst = true;
const deleteDialog = modal($("delete-dialog"));
// Signing in to another app (oidc.js): once the person has signed in here, the flow goes on instead of
// the account being shown.
let afterSignIn = null;

// The state of the background autofill request, kept on <body> for the browser tests: "starting",
// "waiting" (the browser holds it until the person picks a passkey), "ended", "unavailable", "off".
function autofillState(state) { document.body.dataset.autofill = state; }

// ---- explaining failures, each with what to do next ----
function explain(e) {
  if (e instanceof ApiError) return e.message;
  switch (e?.name) {
    case "NotAllowedError": return t("app.the-passkey-request-was-cancelled");
    case "InvalidStateError": return t("app.this-device-already-holds-a");
    case "SecurityError": return t("app.the-browser-refused-this-page");
    case "AbortError": return t("app.the-passkey-request-was-interrupted");
    default: return e?.message || String(e);
  }
}

// ---- the account's language ----
// Its mails are written in the language the person reads this page in: the server is told once per
// account and page load (nothing is stored in the browser for it). <body data-language-told> says so,
// for the browser tests.
let languageTold = null;
async function tellLanguage(accountId) {
  if (!accountId || languageTold === accountId) return;
  languageTold = accountId;
  try {
    await api("PUT", "api/account/language", { language });
    document.body.dataset.languageTold = language;
  } catch {
    languageTold = null;  // not told: the mails stay in the server's default language until the next time
  }
}

// ---- the views ----
// Passkey autofill starts with the page and again whenever the name field gains focus — never by
// itself after a logout or a failed login, so an autofill that resolves at once cannot sign the person
// straight back in or repeat a failure in a loop.
function showWelcome({ autofill = false } = {}) {
  account = null;
  passkeys = [];
  clearActivity();
  $("account").hidden = true;
  $("session-bar").hidden = true;
  hideRecovery();
  hideInvitation();
  hideEmail();
  hideNewDevice();
  showRecoveryRisk(null);
  $("main").dataset.view = "welcome";
  if (!browser.webauthn) {
    showUnsupported();
    return;
  }
  $("welcome").hidden = false;
  refreshRegisterButton();
  showSignUpPolicy();
  if (autofill) startConditionalLogin();
}

// The sign-up form only where it can work (`--signup open`); otherwise what to do instead, and where the
// people of some domains may sign up by a link mailed to them (`--signup-domain`), that form. Asked once.
let signUp = null;
async function showSignUpPolicy() {
  if (signUp === null) {
    try {
      signUp = await api("GET", "api/signup", undefined, { anonymous: true });
    } catch {
      signUp = { policy: "open", domains: [] };  // the form says what the server says when it is used
    }
  }
  const open = signUp.policy === "open";
  $("welcome-form").hidden = !open;
  $("signup-closed").hidden = open;
  $("signup-email-form").hidden = open || signUp.domains.length === 0;
  $("signup-domains").textContent = formatList(signUp.domains, "disjunction");
  document.body.dataset.signup = signUp.policy;
}

async function requestSignUpLink(event) {
  event.preventDefault();
  const address = $("signup-email").value.trim();
  if (!address) {
    warn(t("app.type-your-address-at-p0", { p0: signUp?.domains?.length ? formatList(signUp.domains, "disjunction") : t("app.your-organisation") }));
    $("signup-email").focus();
    return;
  }
  await whileBusy($("signup-email-send"), t("app.sending"), async () => {
    try {
      // The page's language goes with it: the mail is written in it (there is no account to hold one yet).
      await api("POST", "api/signup/email", { email: address, language }, { anonymous: true });
      $("signup-email").value = "";
      say(t("app.a-link-to-make-your", { address }));
    } catch (e) {
      warn(explain(e));
      $("signup-email").focus();
    }
  });
}

function showUnsupported() {
  $("welcome").hidden = true;
  hideRecovery();
  hideInvitation();
  hideNewDevice();
  $("unsupported").hidden = false;
  if (!browser.secureContext) {
    $("unsupported-reason").textContent = t("app.passkeys-only-work-on-a");
  }
}

function showAccount(data, { focus = true } = {}) {
  cancelConditionalLogin();
  tellLanguage(data?.account?.id ?? data?.id);
  if (afterSignIn) {
    const next = afterSignIn;
    afterSignIn = null;
    $("welcome").hidden = true;
    next(data);
    return;
  }
  account = data;
  $("welcome").hidden = true;
  $("unsupported").hidden = true;
  hideRecovery();
  hideInvitation();
  hideNewDevice();
  resetApproval();
  // Signed in after a recovery or an invitation: the address becomes the page's own again, so that a reload shows the account.
  if (isRecoveryPage() || isInvitePage() || isVerifyEmailPage()) history.replaceState(null, "", "./");
  showRecoveryRisk(data.recoveryRisk ?? null);
  $("account").hidden = false;
  $("session-bar").hidden = false;
  $("main").dataset.view = "account";
  $("signed-in-as").textContent = account.displayName;
  $("display-name").value = account.displayName;
  $("credo").value = account.credo;
  $("username").value = account.username ?? "";
  showUsernameError(null);
  $("add-passkey").hidden = !browser.webauthn;
  refreshUpdateButton();
  clearActivity();
  loadPasskeys().then(() => loadActivity());
  showEmail();
  loadApps();
  if (focus) $("account-title").focus();
}

function refreshRegisterButton() {
  const fits = countCharacters($("passkey-name"), $("passkey-name-count"), { trim: true });
  $("register").disabled = !fits || $("passkey-name").value.trim() === "";
}

function refreshUpdateButton() {
  const nameFits = countCharacters($("display-name"), $("display-name-count"), { trim: true });
  const credoFits = countCharacters($("credo"), $("credo-count"));
  const name = $("display-name").value.trim();
  const changed = account && (name !== account.displayName || $("credo").value !== account.credo || usernameChanged());
  setUnavailable($("update"), !changed || name === "" || !nameFits || !credoFits);
}

// The username as the server will store it (lower case, trimmed); "" removes it.
const typedUsername = () => $("username").value.trim().toLowerCase();
const usernameChanged = () => typedUsername() !== (account?.username ?? "");

// The username's own error, tied to the field (aria-describedby) and read out with it; null clears it.
function showUsernameError(message) {
  $("username-error").textContent = message ?? "";
  $("username-error").hidden = !message;
  $("username").setAttribute("aria-invalid", message ? "true" : "false");
}

async function loadPasskeys() {
  const risk = loadRecoveryRisk();
  try {
    passkeys = await api("GET", "api/account/passkeys");
    renderPasskeys($("passkeys"), passkeys, { rename: renamePasskey, remove: removePasskey });
  } catch (e) { warn(explain(e)); }
  await risk;
}

// ---- apps with access (OpenID Connect clients the person let in) ----
async function loadApps() {
  const shownFor = account?.id;
  try {
    const apps = await api("GET", "api/account/apps");
    if (account?.id !== shownFor) return;
    $("apps-unavailable").hidden = true;
    renderApps($("apps"), apps, { remove: removeApp });
  } catch (e) {
    if (account?.id !== shownFor) return;
    $("apps").replaceChildren();
    $("apps-empty").hidden = true;
    $("apps-unavailable").hidden = false;
    console.info("Latchkey: the apps with access could not be read:", e?.message ?? e);
  }
}

async function removeApp(app) {
  try {
    await api("DELETE", `api/account/apps/${encodeURIComponent(app.clientId)}`);
    await loadApps();
    loadActivity();
    say(t("app.removed-access-for-name", { name: app.name }));
    $("apps-title").focus();
    return true;
  } catch (e) { warn(explain(e)); return false; }
}

// ---- the warning that losing a device would need the operator's help ----
// The server decides (GET /api/account's recoveryRisk: one passkey, or only device-bound ones); it is
// read again whenever the passkeys are, so adding or removing one updates the warning.
const riskReasons = {
  single_passkey: t("app.your-account-has-only-one"),
  device_bound_only: t("app.none-of-your-passkeys-can"),
};

function showRecoveryRisk(risk) {
  $("recovery-risk").hidden = !risk;
  $("recovery-risk-reason").textContent = risk ? (riskReasons[risk] ?? "") : "";
}

async function loadRecoveryRisk() {
  try {
    const details = await api("GET", "api/account");
    if (account?.id === details.id) showRecoveryRisk(details.recoveryRisk ?? null);
  } catch (e) {
    console.info("Latchkey: the account's recovery risk could not be read:", e?.message ?? e);
  }
}

// ---- recent activity ----
const activityPage = 10;

function clearActivity() {
  activity = { events: [], next: null, generation: activity.generation + 1 };
  $("activity").replaceChildren();
  $("activity-more").hidden = true;
  $("activity-empty").hidden = true;
  $("activity-unavailable").hidden = true;
}

function showActivity() {
  renderActivity($("activity"), activity.events, passkeys);
  $("activity-empty").hidden = activity.events.length !== 0;
  $("activity-more").hidden = activity.next === null;
}

// The newest events again, after the page's own actions (each one adds to the history). A failure is
// said in the card, not in the message line: the person did not ask for this list.
async function loadActivity() {
  const generation = ++activity.generation;
  try {
    const page = await api("GET", `api/account/events?limit=${activityPage}`);
    if (generation !== activity.generation) return;
    activity = { events: page.events ?? [], next: page.next ?? null, generation };
    $("activity-unavailable").hidden = true;
    showActivity();
  } catch (e) {
    if (generation !== activity.generation) return;
    console.info("Latchkey: the recent activity could not be loaded:", e?.message ?? e);
    $("activity-unavailable").hidden = false;
  }
}

// "Show more": the page after the last one shown. The focus moves to the first new event when the
// button goes away (nothing more to show), so that it is not lost with the button.
async function moreActivity() {
  const button = $("activity-more");
  if (activity.next === null) return;
  const generation = activity.generation;
  await whileBusy(button, t("app.loading"), async () => {
    try {
      const page = await api("GET", `api/account/events?limit=${activityPage}&cursor=${encodeURIComponent(activity.next)}`);
      if (generation !== activity.generation) return;
      const shown = activity.events.length;
      activity = { events: [...activity.events, ...(page.events ?? [])], next: page.next ?? null, generation };
      showActivity();
      if (activity.next === null) $("activity").children[shown]?.focus();
    } catch (e) { warn(explain(e)); }
  });
}

// ---- ceremonies ----
async function register(event) {
  event.preventDefault();
  const name = $("passkey-name").value.trim();
  if (!name || $("register").disabled) return;
  cancelConditionalLogin();
  await whileBusy($("register"), t("app.creating-your-passkey"), async () => {
    say(t("app.your-device-will-ask-you"));
    try {
      const options = await api("POST", "api/registration/options", { displayName: name });
      rpId = options.publicKey.rp.id ?? rpId;
      const credential = await navigator.credentials.create({ publicKey: creationOptions(options.publicKey) });
      const result = await api("POST", "api/registration/verify", { credential: credentialJSON(credential) });
      $("passkey-name").value = "";
      showAccount(result.account);
      say(t("app.registered-and-signed-in-as", { displayName: result.account.displayName }));
    } catch (e) {
      warn(explain(e));
    }
  });
}

// Sends a credential the person chose for verification. `quiet` (the autofill path) reports nothing on
// failure: an unknown passkey is only signalled to the browser, so that it stops offering it.
async function finishLogin(credential, { quiet = false, recovered = false } = {}) {
  try {
    const result = await api("POST", "api/login/verify", { credential: credentialJSON(credential) });
    // The passkey evaluated its PRF (the server's --prf-salt): the outputs came back with the session. This
    // page has no encrypted data to open with them, so it only says so, and keeps nothing of them.
    const unlocked = result.prf !== undefined;
    showAccount(result.account);
    say(t("app.signed-in-as-displayname", { displayName: result.account.displayName })
      + (unlocked ? t("app.this-passkey-can-unlock-encrypted") : "")
      + (recovered ? t("app.remove-the-passkeys-you-lost") : ""));
  } catch (e) {
    const unknown = e instanceof ApiError && e.code === "unknown_credential";
    const signalled = unknown ? await signalUnknownCredential(rpId, credential.id) : false;
    if (quiet) {
      console.info("Latchkey: the passkey from autofill was not accepted:", e?.message ?? e);
    } else if (unknown) {
      warn(e.message + (signalled ? t("app.your-browser-was-asked-to") : t("app.remove-it-from-your-password")));
    } else {
      warn(explain(e));
    }
  }
}

// `button` shows that it is busy: Log in, or the recovery view's "Sign in with your new passkey".
async function login(button = $("login"), { recovered = false } = {}) {
  cancelConditionalLogin();
  await whileBusy(button, t("app.waiting-for-your-passkey"), async () => {
    say(t("app.choose-your-passkey-when-your"));
    try {
      const options = await api("POST", "api/login/options");
      rpId = options.publicKey.rpId ?? rpId;
      const credential = await navigator.credentials.get({ publicKey: requestOptions(options.publicKey) });
      await finishLogin(credential, { recovered });
    } catch (e) {
      warn(explain(e));
    }
  });
}

// The welcome view's Log in. Where the browser has the immediate sign-in (`immediateGet`), the first press
// asks for it: the browser's account chooser opens at once when this device holds a passkey for Latchkey,
// and otherwise the request fails at once with NotAllowedError and nothing is shown. Then the page says
// so, gives the autofill back, and the next press opens the usual dialog (a passkey on a phone, a security
// key). It never opens a dialog by itself after the immediate request failed: the person may have closed
// the chooser on purpose, and the browser reports that the same way.
async function logInPressed() {
  if (!browser.immediateGet || !immediateFirst) { await login(); return; }
  cancelConditionalLogin();
  let next = null;
  await whileBusy($("login"), t("app.looking-for-your-passkey"), async () => {
    let credential;
    try {
      const options = await api("POST", "api/login/options");
      rpId = options.publicKey.rpId ?? rpId;
      try {
        credential = await navigator.credentials.get(immediateRequest(requestOptions(options.publicKey)));
      } catch (e) {
        if (e?.name !== "NotAllowedError" && e?.name !== "TypeError") throw e;
        immediateFirst = false;
        if (e.name === "NotAllowedError") {
          next = "autofill";
          say(t("app.no-passkey-for-brand-is"));
        } else {
          // A browser that announced the immediate sign-in but refused the request's form: the usual
          // dialog, now and from then on (nothing was shown to the person yet, so it is no second prompt).
          console.info("Latchkey: the immediate sign-in was refused:", e.message);
          next = "dialog";
        }
        return;
      }
    } catch (e) {
      warn(explain(e));
      return;
    }
    await finishLogin(credential);
  });
  if (next === "dialog") await login();
  // Back to the welcome view as it was before the press: passkey autofill waits in the name field again.
  else if (next === "autofill" && !account) startConditionalLogin();
}

// Passkey autofill: a conditional request runs while the welcome view is shown; an explicit click
// aborts it first, so the two never race for the same authenticator.
async function startConditionalLogin() {
  if (conditional || account || !browser.webauthn) return;
  if (!browser.conditionalGet) { autofillState("unavailable"); return; }
  const controller = new AbortController();
  conditional = controller;
  autofillState("starting");
  try {
    const options = await api("POST", "api/login/options");
    if (controller.signal.aborted) return;
    rpId = options.publicKey.rpId ?? rpId;
    autofillState("waiting");
    const credential = await navigator.credentials.get({
      publicKey: requestOptions(options.publicKey), mediation: "conditional", signal: controller.signal,
    });
    if (conditional === controller) conditional = null;
    await finishLogin(credential, { quiet: true });
  } catch (e) {
    // Nothing the person did: an empty authenticator, a timeout, an abort. Said only to the console.
    if (conditional === controller) conditional = null;
    if (e?.name !== "AbortError") console.info("Latchkey: passkey autofill ended:", e?.name ?? e);
  } finally {
    if (!conditional) autofillState("ended");
  }
}

function cancelConditionalLogin() {
  if (conditional) {
    const controller = conditional;
    conditional = null;
    controller.abort();
  }
}

// Adding a passkey needs a recent sign-in (a passkey outlives every session): when the server asks for
// one, the person confirms with a passkey they already have, then the options are asked for again.
// Null when the confirmation signed in to another account (the page then shows that one).
async function addPasskeyOptions() {
  try {
    return await api("POST", "api/registration/options", {});
  } catch (e) {
    if (!(e instanceof ApiError && e.code === "recent_sign_in_required")) throw e;
  }
  if (!await confirmItIsYou(t("app.add-the-passkey-again-if"))) return null;
  say(t("app.confirmed-your-device-will-now"));
  return await api("POST", "api/registration/options", {});
}

// A fresh sign-in with one of the account's passkeys, for what needs one (adding a passkey, changing the
// email address). False when the passkey chosen belongs to another account: the page then shows that
// one, and `again` says what to do.
async function confirmItIsYou(again) {
  say(t("app.first-confirm-it-is-you"));
  const request = await api("POST", "api/login/options");
  const credential = await navigator.credentials.get({ publicKey: requestOptions(request.publicKey) });
  const result = await api("POST", "api/login/verify", { credential: credentialJSON(credential) });
  if (result.account.id !== account?.id) {
    showAccount(result.account);
    warn(t("app.that-passkey-belongs-to-displayname", { displayName: result.account.displayName, again }));
    return false;
  }
  return true;
}

async function addPasskey() {
  await whileBusy($("add-passkey"), t("app.creating-a-passkey"), async () => {
    say(t("app.your-device-will-ask-you-2"));
    try {
      const options = await addPasskeyOptions();
      if (!options) return;
      rpId = options.publicKey.rp.id ?? rpId;
      const credential = await navigator.credentials.create({ publicKey: creationOptions(options.publicKey) });
      const result = await api("POST", "api/registration/verify", { credential: credentialJSON(credential) });
      await loadPasskeys();
      say(t("app.added-the-passkey-name-rename", { name: result.passkey.name }));
    } catch (e) { warn(explain(e)); }
    // Also after a failure: the sign-in that confirmed it was the person is history of its own.
    if (account) loadActivity();
  });
}

async function renamePasskey(passkey, name) {
  try {
    const renamed = await api("PATCH", `api/account/passkeys/${passkey.id}`, { name });
    await loadPasskeys();
    loadActivity();
    say(t("app.renamed-to-name", { name: renamed.name }));
    document.querySelector(`#passkeys li[data-id="${CSS.escape(passkey.id)}"] button`)?.focus();
    return true;
  } catch (e) { warn(explain(e)); return false; }
}

async function removePasskey(passkey) {
  try {
    await api("DELETE", `api/account/passkeys/${passkey.id}`);
    await loadPasskeys();
    loadActivity();
    const signalled = account ? await signalAllAcceptedCredentials(rpId, account.userHandle, passkeys.map((p) => p.id)) : false;
    say(t("app.removed-the-passkey-name", { name: passkey.name }) + (signalled ? "" : t("app.also-remove-it-from-your")));
    $("add-passkey").focus();
    return true;
  } catch (e) { warn(explain(e)); return false; }
}

// ---- the account ----
async function update(event) {
  event.preventDefault();
  if (isUnavailable($("update"))) return;
  await whileBusy($("update"), t("app.saving"), async () => {
    try {
      const body = {};
      const name = $("display-name").value.trim();
      if (name !== account.displayName) body.displayName = name;
      if ($("credo").value !== account.credo) body.credo = $("credo").value;
      if (usernameChanged()) body.username = typedUsername() === "" ? null : typedUsername();
      showUsernameError(null);
      const updated = await api("PATCH", "api/account", body);
      // The answer is the account as GET api/account gives it (the username in the server's form).
      account = { ...account, ...updated };
      $("display-name").value = account.displayName;
      $("username").value = account.username ?? "";
      $("signed-in-as").textContent = account.displayName;
      // Keep the password manager's list in step with the new name (WebAuthn L3 signal).
      if (body.displayName) await signalCurrentUserDetails(rpId, account.userHandle, account.displayName);
      say(t("app.saved"));
      loadActivity();
    } catch (e) {
      // A refused username is said at its field, which gets the focus; the rest at the top.
      if (e instanceof ApiError && (e.code === "username_invalid" || e.code === "username_taken")) {
        clearMessages();
        showUsernameError(e.code === "username_taken" ? t("app.someone-else-has-this-username") : e.message);
        $("username").focus();
      } else {
        warn(explain(e));
      }
    }
  });
  refreshUpdateButton();
}

// Ends this session (`/api/logout`) or every session of the account (`/api/logout/everywhere`).
async function signOut(button, path, busyLabel, message) {
  await whileBusy(button, busyLabel, async () => {
    try {
      await api("POST", path);
      showWelcome();
      say(message);
      $("welcome-title").focus();
    } catch (e) { warn(explain(e)); }
  });
}

const logout = () => signOut($("logout"), "api/logout", t("app.logging-out"),
  t("app.signed-out-log-in-again"));
const logoutEverywhere = () => signOut($("logout-everywhere"), "api/logout/everywhere", t("app.signing-out"),
  t("app.signed-out-on-every-device"));

async function deleteAccount() {
  await whileBusy($("confirm-delete"), t("app.deleting"), async () => {
    try {
      const handle = account?.userHandle;
      await api("DELETE", "api/account");
      deleteDialog.close();
      const signalled = handle ? await signalAllAcceptedCredentials(rpId, handle, []) : false;
      showWelcome();
      say(t("app.your-account-was-deleted") + (signalled ? "" : t("app.remove-its-passkey-from-your")));
      $("welcome-title").focus();
    } catch (e) {
      deleteDialog.close();
      warn(explain(e));
    }
  });
}

// ---- start ----
async function start() {
  setUpPicker($("language-picker"));
  // A recovery or invitation link's code is read, and taken out of the address bar, before anything else.
  const recovery = isRecoveryPage();
  const invite = isInvitePage();
  const code = recovery || invite ? takeCodeFromAddress() : "";
  // So is an email confirmation link's token (email.js keeps it until the person is signed in).
  if (isVerifyEmailPage()) takeTokenFromAddress();
  for (const id of ["welcome-title", "account-title", "apps-title"]) $(id).tabIndex = -1;
  $("passkey-name").addEventListener("input", refreshRegisterButton);
  $("passkey-name").addEventListener("focus", () => startConditionalLogin());
  $("welcome-form").addEventListener("submit", register);
  $("signup-email-form").addEventListener("submit", requestSignUpLink);
  $("login").addEventListener("click", () => logInPressed());
  $("account-form").addEventListener("submit", update);
  $("display-name").addEventListener("input", refreshUpdateButton);
  $("credo").addEventListener("input", refreshUpdateButton);
  $("username").addEventListener("input", () => { showUsernameError(null); refreshUpdateButton(); });
  $("logout").addEventListener("click", logout);
  $("logout-everywhere").addEventListener("click", logoutEverywhere);
  $("delete").addEventListener("click", () => { clearMessages(); deleteDialog.open(); });
  $("cancel-delete").addEventListener("click", () => deleteDialog.close());
  $("confirm-delete").addEventListener("click", deleteAccount);
  $("add-passkey").addEventListener("click", addPasskey);
  $("activity-more").addEventListener("click", moreActivity);
  setUpRecovery({ explain, signIn: (button) => login(button, { recovered: true }) });
  setUpInvitation({ explain, signIn: (button) => login(button) });
  setUpEmail({ explain, changed: () => { if (account) loadActivity(); }, confirmItIsYou });
  setUpDeviceApproval({
    explain, signIn: (button) => login(button), changed: () => { if (account) loadActivity(); }, showing: cancelConditionalLogin,
  });

  browser = await capabilities();
  if (isAuthorizePage() || isEndSessionPage() || isDevicePage()) {
    const hooks = {
      explain,
      showSignIn: (appName, next) => {
        afterSignIn = next;
        $("oidc-context").hidden = false;
        $("oidc-context").textContent = t("app.sign-in-to-continue-to", { appName });
        showWelcome({ autofill: true });
        $("welcome-title").focus();
      },
    };
    if (isAuthorizePage()) await authorize(hooks); else if (isDevicePage()) await device(hooks); else await endSession(hooks);
    return;
  }
  if (isForwardAuthPage()) {
    await forwardAuth({
      explain,
      showSignIn: (context, next) => {
        afterSignIn = next;
        $("oidc-context").hidden = false;
        $("oidc-context").textContent = context;
        showWelcome({ autofill: true });
        $("welcome-title").focus();
      },
    });
    return;
  }
  if (recovery) {
    // The recovery view, whoever is signed in here: nothing else starts (no autofill, no account).
    autofillState("off");
    if (browser.webauthn) { showRecovery(code); offerRecoveryEmail(); } else showUnsupported();
    return;
  }
  if (invite) {
    // The invitation's view, the same way.
    autofillState("off");
    if (browser.webauthn) showInvitation(code); else showUnsupported();
    return;
  }
  if (!browser.conditionalGet) autofillState(browser.webauthn ? "unavailable" : "off");
  try {
    showAccount(await api("GET", "api/account"), { focus: false });
    autofillState("off");
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401)) warn(explain(e));
    showWelcome({ autofill: true });
    if (hasPendingConfirmation()) say(t("app.sign-in-to-confirm-your"));
  }
}

start();
