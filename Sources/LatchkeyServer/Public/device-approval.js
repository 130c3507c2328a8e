// Letting a new device in from a signed-in one (issue 30, item 3), with no operator and no email.
//
// On the new device, "Sign in on a new device" (the welcome view): POST api/device-requests gives a short
// code to show and a secret this module keeps in memory; it polls with the secret until the request is
// approved, denied or expired. Approved, the poll gives a restricted session (a bearer token, in memory
// only, never stored or sent as a cookie) that can do one thing: add this device's own passkey
// (restricted-passkey.js). The view shows whose account let it in (name, username, the id's start) and
// adds the passkey only when the person says it is theirs: someone who saw the code could approve it from
// their own account (review 4, S4-12). The person may also name their username first; then only that
// account can find the request, and the passkey is also offered in the background (conditional create).
// Then the person signs in with that passkey, as anyone does.
//
// On the signed-in device, "Approve a new device" (the account view): the code finds the request, which
// shows the browser, address and time that asked; approving it takes a fresh passkey assertion with user
// verification (POST api/account/confirm/options, then …/approve); denying it ends it.

import { intlLanguage, t } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { restrictedPasskey } from "./restricted-passkey.js";
import { $, say, warn, whileBusy } from "./ui.js";
import { credentialJSON, requestOptions } from "./webauthn.js";

let hooks = { explain: (e) => String(e), signIn: async () => {}, changed: () => {}, showing: () => {} };
const time = new Intl.DateTimeFormat(intlLanguage, { timeStyle: "short" });
const dateAndTime = new Intl.DateTimeFormat(intlLanguage, { dateStyle: "medium", timeStyle: "medium" });

// ---- the new device ----

// The request while it is shown: { id, secret, code, expiresAt: Date, pollInterval }; the restricted
// session once approved: { token, expiresAt: Date, account }. `generation` drops a poll's answer that
// comes after the person moved on (cancelled, asked again, left the view).
let request = null;
let session = null;
let generation = 0;
let pollTimer = null;

const steps = ["start", "code", "add", "done", "ended"];
const headings = { start: "new-device-title", code: "new-device-code-title", add: "new-device-add-title",
  done: "new-device-done-title", ended: "new-device-ended-title" };

function showStep(step, { focus = true } = {}) {
  for (const name of steps) $(`new-device-${name}-step`).hidden = name !== step;
  $("new-device").dataset.step = step;
  if (focus) $(headings[step]).focus();
}

function stopPolling() {
  generation += 1;
  if (pollTimer !== null) clearTimeout(pollTimer);
  pollTimer = null;
}

function setTime(element, date) {
  element.dateTime = date.toISOString();
  element.textContent = time.format(date);
}

// Shows the view, at its first step (the welcome view is hidden by the page first: `hooks.showing`).
export function showNewDevice() {
  hooks.showing();
  stopPolling();
  passkey.stop();
  request = null;
  session = null;
  $("welcome").hidden = true;
  $("new-device").hidden = false;
  $("main").dataset.view = "new-device";
  showStep("start");
}

// Leaves the view: the polling stops and whatever it held is forgotten.
export function hideNewDevice() {
  stopPolling();
  passkey.stop();
  request = null;
  session = null;
  $("new-device").hidden = true;
}

async function ask() {
  const button = $("new-device-ended-step").hidden ? $("new-device-request") : $("new-device-retry");
  await whileBusy(button, t("device-approval.asking"), async () => {
    try {
      const username = $("new-device-username").value.trim();
      const made = await api("POST", "api/device-requests", username ? { username } : undefined);
      stopPolling();
      request = { ...made, username: username.toLowerCase() || null, expiresAt: new Date(made.expiresAt),
        pollInterval: Math.max(1, made.pollInterval ?? 2) };
      $("new-device-code").textContent = made.code;
      setTime($("new-device-expires"), request.expiresAt);
      setState("pending", t("device-approval.waiting-for-your-approval-on"));
      showStep("code");
      say(t("device-approval.your-code-is-code-type", { code: made.code }));
      schedulePoll(generation);
    } catch (e) { warn(hooks.explain(e)); }
  });
}

function setState(state, text) {
  const line = $("new-device-state");
  line.dataset.state = state;
  line.textContent = text;
}

function schedulePoll(current) {
  pollTimer = setTimeout(() => poll(current), request.pollInterval * 1000);
}

async function poll(current) {
  if (current !== generation || !request) return;
  let answer;
  try {
    answer = await api("POST", `api/device-requests/${encodeURIComponent(request.id)}/poll`, { secret: request.secret });
  } catch (e) {
    if (current !== generation) return;
    if (e instanceof ApiError && e.status === 404) { end("expired"); return; }
    // A network hiccup or a busy server: keep asking while the code lives.
    if (Date.now() < request.expiresAt.getTime()) schedulePoll(current); else end("expired");
    return;
  }
  if (current !== generation) return;
  switch (answer.status) {
    case "pending":
      if (Date.now() < request.expiresAt.getTime() + 5000) schedulePoll(current); else end("expired");
      return;
    case "approved":
      approved(answer);
      return;
    default:
      end(answer.status);
  }
}

function approved(answer) {
  stopPolling();
  const named = request?.username;
  request = null;
  session = { token: answer.token, expiresAt: new Date(answer.expiresAt), account: answer.account };
  setState("approved", t("device-approval.approved"));
  // Whose account this is, in what its holder cannot dress up as someone else's (the username, the id);
  // no passkey is offered before the person says it is theirs (review 4, S4-12).
  $("new-device-name").textContent = session.account.displayName;
  $("new-device-account-name").textContent = session.account.displayName;
  $("new-device-account-username").textContent = session.account.username ?? t("device-approval.none");
  $("new-device-account-id").textContent = t("device-approval.p0", { p0: session.account.id.slice(0, 8) });
  setTime($("new-device-session-expires"), session.expiresAt);
  showStep("add");
  say(t("device-approval.a-signed-in-device-let", { displayName: session.account.displayName }));
  // Named by the person before the code was shown, the account could only be theirs (the server lets no
  // other account find the request): then the password manager may save the passkey in the background.
  if (named && session.account.username === named) passkey.offer();
}

const endings = {
  denied: [t("device-approval.the-request-was-denied"), t("device-approval.it-was-refused-on-your")],
  expired: [t("device-approval.this-code-has-expired"), t("device-approval.codes-work-for-5-minutes")],
  used: [t("device-approval.this-code-was-used-already"), t("device-approval.show-a-new-code-to")],
  cancelled: [t("device-approval.you-cancelled-the-request"), t("device-approval.show-a-new-code-when")],
  "not-mine": [t("device-approval.nothing-was-added"), t("device-approval.this-device-was-let-in")],
};

function end(status) {
  stopPolling();
  request = null;
  const [title, reason] = endings[status] ?? endings.expired;
  $("new-device-ended-title").textContent = title;
  $("new-device-ended-reason").textContent = reason;
  showStep("ended");
  if (status === "cancelled" || status === "not-mine") say(t("device-approval.title-reason", { title, reason })); else warn(t("device-approval.title-reason", { title, reason }));
}

const passkey = restrictedPasskey({
  button: $("new-device-add-passkey"),
  session: () => session,
  asking: t("app.your-device-will-ask-you"),
  added(result, { conditional }) {
    session = null;
    showStep("done");
    say(t(conditional ? "device-approval.password-manager-saved-on-this-device" : "device-approval.added-on-this-device", { name: result.passkey.name }));
  },
  over() {
    session = null;
    end("expired");
  },
  explain: (e) => e?.name === "InvalidStateError"
    ? t("device-approval.this-device-already-holds-a")
    : hooks.explain(e),
});

// ---- the signed-in device ----

// The request found by its code, while it is shown for approval.
let found = null;

// Back to an empty code field (a new account view, or the request settled).
export function resetApproval() {
  found = null;
  $("approve-request").hidden = true;
  $("approve-code").value = "";
}

async function find(event) {
  event.preventDefault();
  const code = $("approve-code").value.trim();
  if (!code) {
    warn(t("device-approval.type-the-code-the-new"));
    $("approve-code").focus();
    return;
  }
  await whileBusy($("approve-find"), t("device-approval.finding"), async () => {
    try {
      found = await api("POST", "api/account/device-requests/find", { code });
      $("approve-device").textContent = found.device ?? t("device-approval.an-unknown-browser");
      $("approve-address").textContent = found.clientAddress ?? t("device-approval.unknown");
      const asked = new Date(found.createdAt);
      $("approve-time").dateTime = asked.toISOString();
      $("approve-time").textContent = dateAndTime.format(asked);
      $("approve-agent").textContent = found.userAgent ?? "—";
      $("approve-for").textContent = found.forUsername ?? "";
      $("approve-for").hidden = $("approve-for-term").hidden = !found.forUsername;
      $("approve-request").hidden = false;
      say(t("device-approval.found-a-request-from-p0", { p0: found.device ?? t("device-approval.an-unknown-browser-2") }));
      $("approve-request-title").focus();
    } catch (e) {
      found = null;
      $("approve-request").hidden = true;
      warn(hooks.explain(e));
      $("approve-code").focus();
    }
  });
}

async function approve() {
  if (!found) return;
  const id = found.id;
  await whileBusy($("approve-confirm"), t("app.waiting-for-your-passkey"), async () => {
    say(t("device-approval.confirm-it-is-you-choose"));
    try {
      const options = await api("POST", "api/account/confirm/options");
      const credential = await navigator.credentials.get({ publicKey: requestOptions(options.publicKey) });
      await api("POST", `api/account/device-requests/${encodeURIComponent(id)}/approve`, { credential: credentialJSON(credential) });
      const device = found?.device ?? t("device-approval.the-device");
      resetApproval();
      say(t("device-approval.approved-device-can-now-add", { device }));
      $("approve-code").focus();
      hooks.changed();
    } catch (e) { warn(hooks.explain(e)); }
  });
}

async function deny() {
  if (!found) return;
  const id = found.id;
  await whileBusy($("approve-deny"), t("device-approval.denying"), async () => {
    try {
      await api("POST", `api/account/device-requests/${encodeURIComponent(id)}/deny`);
      resetApproval();
      say(t("device-approval.denied-that-device-was-not"));
      $("approve-code").focus();
      hooks.changed();
    } catch (e) { warn(hooks.explain(e)); }
  });
}

// Wires both sides' controls once. `explain(error)` words a failure; `signIn(button)` runs the page's
// passkey sign-in; `changed()` after the account's history grew; `showing()` before the new-device view
// replaces the welcome view.
export function setUpDeviceApproval(options) {
  hooks = { ...hooks, ...options };
  for (const id of Object.values(headings)) $(id).tabIndex = -1;
  $("approve-request-title").tabIndex = -1;
  $("new-device-start").addEventListener("click", showNewDevice);
  $("new-device-request").addEventListener("click", ask);
  $("new-device-retry").addEventListener("click", ask);
  $("new-device-cancel").addEventListener("click", () => end("cancelled"));
  $("new-device-add-passkey").addEventListener("click", () => passkey.add());
  $("new-device-not-mine").addEventListener("click", () => {
    passkey.stop();
    session = null;
    end("not-mine");
  });
  $("new-device-login").addEventListener("click", () => hooks.signIn($("new-device-login")));
  $("approve-form").addEventListener("submit", find);
  $("approve-confirm").addEventListener("click", approve);
  $("approve-deny").addEventListener("click", deny);
}
