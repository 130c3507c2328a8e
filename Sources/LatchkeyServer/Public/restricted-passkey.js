// Adding a passkey with a restricted session: the one thing the session a recovery code (recovery.js), a
// new device's approval (device-approval.js) or an invitation (invitation.js) gives may do. Its token goes
// out as a bearer token on the two requests of the add-passkey ceremony, and nowhere else.
//
// Two ways in, for the same ceremony. The view's button asks with the browser's usual dialog. Where the
// browser has conditional create (`getClientCapabilities().conditionalCreate`), the view also offers the
// passkey in the background as it opens (`mediation: "conditional"` on create): the password manager may
// save it without a dialog, or keep the request waiting, or refuse it — all quietly, the button stays. A
// press of the button ends the background request first, so that the two never race for the
// authenticator; the background request is made once per session and never again by itself. (WebAuthn
// lets a conditional create leave user presence unset; the server's registration still requires UP, so
// such a passkey is refused, 401 user_not_present, quietly like any other refusal here.)

import { t } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { say, warn, whileBusy } from "./ui.js";
import { capabilities, creationOptions, credentialJSON } from "./webauthn.js";

// The codes with which the server says the restricted session is over (expired, or its grant or
// invitation used up or revoked): the person needs a new code, approval or invitation, not another try.
const sessionOver = new Set(["not_authenticated", "invalid_recovery_code", "invalid_invitation"]);

// The session's token on the ceremony's two requests; `create` is the browser's step in between.
const options = async (token) => creationOptions((await api("POST", "api/registration/options", {}, { token })).publicKey);
const verify = (token, credential) => api("POST", "api/registration/verify", { credential: credentialJSON(credential) }, { token });

// One view's add-passkey step. `hooks`:
//   button: the view's "Add a passkey" button
//   session(): the restricted session held now ({ token, expiresAt: Date }), or null
//   asking: what to say as the browser's dialog opens
//   added(result, { conditional }): the passkey was added (the session is used up: drop it)
//   over(): the session has ended (expired, used up or revoked)
//   explain(error): words a failure (InvalidStateError, a cancelled request …)
// Returns { offer, add, stop }: `offer()` as the step is shown, `add()` for the button, `stop()` when the
// view is left.
export function restrictedPasskey(hooks) {
  // The background request while it runs: { controller, token, verifying (the browser gave a passkey,
  // the server is checking it), done (its promise) }. `offered`: the sessions it was made for, once each.
  let background = null;
  const offered = new Set();
  const current = (token) => hooks.session()?.token === token;

  function stop() {
    if (!background || background.verifying) return;
    const { controller } = background;
    background = null;
    controller.abort();
  }

  async function offer() {
    const session = hooks.session();
    if (!session || background || offered.has(session.token)) return;
    offered.add(session.token);
    if (!(await capabilities()).conditionalCreate || !current(session.token) || background) return;
    const { token } = session;
    const entry = { controller: new AbortController(), token, verifying: false };
    background = entry;
    entry.done = (async () => {
      try {
        const publicKey = await options(token);
        const credential = await navigator.credentials.create({ publicKey, mediation: "conditional", signal: entry.controller.signal });
        entry.verifying = true;
        const result = await verify(token, credential);
        if (current(token)) hooks.added(result, { conditional: true });
      } catch (e) {
        // Refused, still waiting when the person pressed the button, or the session gone: the button is
        // there either way, and nothing the person did failed. Said only to the console.
        if (e?.name !== "AbortError") console.info("Latchkey: the passkey offered in the background was not saved:", e?.code ?? e?.name ?? e);
        if (e instanceof ApiError && sessionOver.has(e.code) && current(token)) hooks.over();
      } finally {
        if (background === entry) background = null;
      }
    })();
    await entry.done;
  }

  async function add() {
    // A passkey from the background request is being checked: its answer settles the step first.
    if (background?.verifying) await background.done;
    stop();
    const session = hooks.session();
    if (!session) return;
    if (Date.now() >= session.expiresAt.getTime()) { hooks.over(); return; }
    const { token } = session;
    await whileBusy(hooks.button, t("app.creating-your-passkey"), async () => {
      say(hooks.asking);
      try {
        const credential = await navigator.credentials.create({ publicKey: await options(token) });
        hooks.added(await verify(token, credential), { conditional: false });
      } catch (e) {
        if (e instanceof ApiError && sessionOver.has(e.code)) hooks.over();
        else warn(hooks.explain(e));  // a cancelled or refused passkey request: the button is still there to try again
      }
    });
  }

  return { offer, add, stop };
}
