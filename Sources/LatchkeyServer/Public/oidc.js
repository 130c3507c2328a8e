// Signing in to another app through Latchkey (OpenID Connect). The app sends the person to /authorize;
// the server checked the app and where it wants the person back, and answered with this page. The page
// asks the server what comes next (POST api/oidc/authorization: the session cookie goes along, which it
// did not on the app's cross-site redirect): sign in first, say yes to the app once, or go back with a
// code. /end-session signs the person out for an app the same way (POST api/oidc/logout). /device is the
// device flow's verification page (RFC 8628): the person types the code a TV or a terminal shows (or finds
// it filled in from the address), signs in, checks the app and the code, and allows it (POST api/oidc/device).
// `document.body.dataset.oidc` says where the flow is: "asking", "login", "consent", "confirm",
// "redirecting", "signed-out", "error", and on /device "device-code", "device-consent", "device-done"
// (the browser tests wait on it).

import { t } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { scopeLabel } from "./scopes.js";
import { $, clearMessages, say, warn, whileBusy } from "./ui.js";

export const isAuthorizePage = () => /\/authorize$/.test(location.pathname);
export const isEndSessionPage = () => /\/end-session$/.test(location.pathname);
export const isDevicePage = () => /\/device$/.test(location.pathname);

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
  for (const name of ["consent", "confirm", "done", "problem", "device-code", "device"]) $(`oidc-${name}-step`).hidden = name !== step;
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
  let appName = t("oidc.the-app");
  const follow = async (reply) => {
    if (reply.client) appName = reply.client.name;
    if (reply.redirect) {
      setState("redirecting");
      $("welcome").hidden = true;
      showPanel("done");
      $("oidc-done").textContent = t("oidc.taking-you-back-to-appname", { appName });
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
      // The app's logo when an operator gave it one (served by this origin, shown as an image only); its
      // name beside it says who it is, so the image itself is decorative (alt="").
      const logo = $("oidc-app-logo");
      if (reply.client?.logo) logo.src = new URL(reply.client.logo, import.meta.url).href;
      logo.hidden = !reply.client?.logo;
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
    await whileBusy(button, allow ? t("oidc.allowing") : t("oidc.declining"), async () => {
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
      $("oidc-done").textContent = t("oidc.signed-out-taking-you-back");
      location.assign(reply.redirect);
      return;
    }
    if (reply.confirm) {
      setState("confirm");
      showPanel("confirm");
      // The app that asked, when known, in a whole sentence of its own.
      if (reply.client) $("oidc-confirm-title").textContent = t("oidc.sign-out-of-brand-from-app", { name: reply.client.name });
      $("oidc-confirm-title").focus();
      return;
    }
    setState("signed-out");
    showPanel("done");
    $("oidc-done").textContent = t("oidc.you-are-signed-out-of");
    say(t("oidc.signed-out"));
  };
  $("oidc-signout").addEventListener("click", async () => {
    await whileBusy($("oidc-signout"), t("app.signing-out"), async () => {
      try { finish(await ask("api/oidc/logout", { query: query(), confirmed: true })); } catch (e) { warn(hooks.explain(e)); }
    });
  });
  $("oidc-stay").addEventListener("click", () => { location.assign("./"); });
  setState("asking");
  try { finish(await ask("api/oidc/logout", { query: query() })); } catch (e) { fail(e, hooks.explain); }
}

// ---- /device (RFC 8628 §3.3) ----
// The code is asked for even when the address carries it (verification_uri_complete): the person confirms
// it is the one their device shows, so that a link someone else sent cannot sign a stranger's device in
// (RFC 8628 §5.4). Signing in comes after the code, so the app's name is shown to the signed-in person only.
export async function device(hooks) {
  $("oidc-title").textContent = t("oidc.sign-in-on-a-device");
  let userCode = "";
  const showCode = () => {
    setState("device-code");
    $("welcome").hidden = true;
    showPanel("device-code");
    $("oidc-device-code-title").focus();
  };
  const showApp = (reply) => {
    setState("device-consent");
    $("welcome").hidden = true;
    $("oidc-context").hidden = true;
    showPanel("device");
    $("oidc-device-app").textContent = reply.client.name;
    $("oidc-device-app-again").textContent = reply.client.name;
    $("oidc-device-code").textContent = userCode.toUpperCase();
    $("oidc-device-scopes").replaceChildren(...(reply.scopes ?? []).map((scope) => {
      const item = document.createElement("li");
      item.textContent = scopeLabel(scope, { detailed: true });
      return item;
    }));
    $("oidc-device-title").focus();
  };
  const lookUp = async () => {
    try {
      showApp(await api("POST", "api/oidc/device", { userCode }));
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        hooks.showSignIn(t("oidc.your-device"), async () => {
          setState("asking");
          await lookUp();
        });
        setState("login");
        return;
      }
      showCode();
      warn(hooks.explain(e));
    }
  };
  $("oidc-device-code-step").addEventListener("submit", async (event) => {
    event.preventDefault();
    clearMessages();
    userCode = $("oidc-user-code").value.trim();
    if (!userCode) { warn(t("oidc.type-the-code-your-device")); $("oidc-user-code").focus(); return; }
    await whileBusy($("oidc-device-continue"), t("oidc.checking"), lookUp);
  });
  const answer = (allow) => async () => {
    const button = $(allow ? "oidc-device-allow" : "oidc-device-deny");
    await whileBusy(button, allow ? t("oidc.allowing") : t("oidc.declining"), async () => {
      clearMessages();
      try {
        const reply = await api("POST", "api/oidc/device", { userCode, allow });
        setState("device-done");
        showPanel("done");
        $("oidc-done").textContent = reply.approved
          ? t("oidc.done-your-device-is-signing", { name: reply.client.name })
          : t("oidc.the-device-was-not-let");
        say(reply.approved ? t("oidc.device-allowed") : t("oidc.device-refused"));
      } catch (e) { warn(hooks.explain(e)); }
    });
  };
  $("oidc-device-allow").addEventListener("click", answer(true));
  $("oidc-device-deny").addEventListener("click", answer(false));
  $("oidc-user-code").value = new URLSearchParams(location.search).get("user_code") ?? "";
  showCode();
}
