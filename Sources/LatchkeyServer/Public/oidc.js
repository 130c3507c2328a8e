// Signing in to another app through Latchkey (OpenID Connect). The app sends the person to /authorize;
// the server checked the app and where it wants the person back, and answered with this page. The page
// asks the server what comes next (POST api/oidc/authorization: the session cookie goes along, which it
// did not on the app's cross-site redirect): sign in first, say yes to the app once, or go back with a
// code. /end-session signs the person out for an app the same way (POST api/oidc/logout).
// `document.body.dataset.oidc` says where the flow is: "asking", "login", "consent", "confirm",
// "redirecting", "signed-out", "error" (the browser tests wait on it).

import { api, ApiError } from "./api.js";
import { scopeLabel } from "./scopes.js";
import { $, clearMessages, say, warn, whileBusy } from "./ui.js";

export const isAuthorizePage = () => /\/authorize$/.test(location.pathname);
export const isEndSessionPage = () => /\/end-session$/.test(location.pathname);

const query = () => location.search.replace(/^\?/, "");
const setState = (state) => { document.body.dataset.oidc = state; };

// The server's answer, whatever the session cookie is: an expired one is a 401, and a request that must be
// answered without asking the person (prompt=none) still deserves its answer at the app, so the question
// is put again as nobody.
async function ask(path, body) {
  try {
    return await api("POST", path, body);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return await api("POST", path, body, { anonymous: true });
    throw e;
  }
}

function showPanel(step) {
  $("oidc").hidden = false;
  for (const name of ["consent", "confirm", "done", "problem"]) $(`oidc-${name}-step`).hidden = name !== step;
}

function fail(e, explain) {
  setState("error");
  $("welcome").hidden = true;
  showPanel("problem");
  $("oidc-problem").textContent = explain(e);
  $("oidc-problem-title").focus();
}

// ---- /authorize ----
// `hooks.showSignIn(appName, next)` shows the sign-in view and calls `next` once the person signed in;
// `hooks.explain` turns a failure into a sentence.
export async function authorize(hooks) {
  let after;
  let appName = "the app";
  const follow = async (reply) => {
    if (reply.client) appName = reply.client.name;
    if (reply.redirect) {
      setState("redirecting");
      $("welcome").hidden = true;
      showPanel("done");
      $("oidc-done").textContent = `Taking you back to ${appName}…`;
      location.assign(reply.redirect);
      return;
    }
    if (reply.interaction === "login") {
      after = reply.after;
      $("oidc").hidden = true;
      hooks.showSignIn(appName, async () => {
        setState("asking");
        try { await follow(await ask("api/oidc/authorization", { query: query(), after })); } catch (e) { fail(e, hooks.explain); }
      });
      setState("login");
      return;
    }
    if (reply.interaction === "consent") {
      after = reply.after;
      setState("consent");
      $("welcome").hidden = true;
      showPanel("consent");
      $("oidc-app").textContent = appName;
      const list = $("oidc-scopes");
      list.replaceChildren(...(reply.scopes ?? []).map((scope) => {
        const item = document.createElement("li");
        item.textContent = scopeLabel(scope, { detailed: true });
        return item;
      }));
      $("oidc-consent-title").focus();
    }
  };
  const answer = (allow) => async () => {
    const button = $(allow ? "oidc-allow" : "oidc-deny");
    await whileBusy(button, allow ? "Allowing…" : "Declining…", async () => {
      clearMessages();
      try { await follow(await api("POST", "api/oidc/consent", { query: query(), after, allow })); } catch (e) { warn(hooks.explain(e)); }
    });
  };
  $("oidc-allow").addEventListener("click", answer(true));
  $("oidc-deny").addEventListener("click", answer(false));
  setState("asking");
  try { await follow(await ask("api/oidc/authorization", { query: query() })); } catch (e) { fail(e, hooks.explain); }
}

// ---- /end-session ----
export async function endSession(hooks) {
  const finish = (reply) => {
    if (reply.redirect) {
      setState("redirecting");
      showPanel("done");
      $("oidc-done").textContent = "Signed out. Taking you back…";
      location.assign(reply.redirect);
      return;
    }
    if (reply.confirm) {
      setState("confirm");
      showPanel("confirm");
      $("oidc-confirm-app").textContent = reply.client ? ` from ${reply.client.name}` : "";
      $("oidc-confirm-title").focus();
      return;
    }
    setState("signed-out");
    showPanel("done");
    $("oidc-done").textContent = "You are signed out of Latchkey.";
    say("Signed out.");
  };
  $("oidc-signout").addEventListener("click", async () => {
    await whileBusy($("oidc-signout"), "Signing out…", async () => {
      try { finish(await ask("api/oidc/logout", { query: query(), confirmed: true })); } catch (e) { warn(hooks.explain(e)); }
    });
  });
  $("oidc-stay").addEventListener("click", () => { location.assign("./"); });
  setState("asking");
  try { finish(await ask("api/oidc/logout", { query: query() })); } catch (e) { fail(e, hooks.explain); }
}
