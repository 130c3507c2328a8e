// The admin console: one more client of the admin API (/api/admin/…), authenticated by the console's own
// HttpOnly cookie, which only a user-verified passkey assertion sets (/admin/api/session/…). A change the
// server refuses with step_up_required is confirmed with the passkey again and sent once more. Nothing of
// an account goes into the address bar: the views change in place.

import { t } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { $, say, warn, clearMessages, whileBusy } from "./ui.js";
import { credentialJSON, requestOptions } from "./webauthn.js";
import { setUpViews } from "./admin-views.js";

let session = null;
const views = ["signin", "setup", "accounts", "account", "audit", "keys"];

export function show(view) {
  for (const name of views) $("view-" + name).hidden = name !== view;
  document.querySelector("main").dataset.view = view;
  for (const tab of document.querySelectorAll(".nav-tab")) {
    if (tab.dataset.view === view || (view === "account" && tab.dataset.view === "accounts")) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
}

export const scopes = () => session?.scopes ?? [];

// Errors in words for a person: the server's message, or what a refused passkey prompt means.
export function explain(error) {
  if (error instanceof ApiError) return error.message;
  if (error?.name === "NotAllowedError") return t("admin.the-passkey-prompt-was-closed");
  return t("admin.something-went-wrong", { message: error?.message ?? String(error) });
}

// A user-verified assertion: signs in, or (with the cookie) refreshes the session's step-up.
async function assert(body = {}) {
  const options = await api("POST", "/admin/api/session/options");
  const credential = await navigator.credentials.get({ publicKey: requestOptions(options.publicKey) });
  session = await api("POST", "/admin/api/session/verify", { credential: credentialJSON(credential), ...body });
  return session;
}

// The admin API, with the step-up folded in: a change refused for want of a fresh passkey asks for it and
// is sent again, once.
export async function adminApi(method, path, body) {
  try {
    return await api(method, path, body);
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "step_up_required") {
      if (error instanceof ApiError && error.status === 401) signedOut();
      throw error;
    }
  }
  say(t("admin.confirm-this-change-with-your"));
  await assert();
  return await api(method, path, body);
}

function signedIn() {
  $("session-bar").hidden = false;
  $("console-nav").hidden = false;
  $("signed-in-as").textContent = session.displayName;
  $("signed-in-scopes").textContent = "(" + session.scopes.join(", ") + ")";
}

function signedOut() {
  session = null;
  $("session-bar").hidden = true;
  $("console-nav").hidden = true;
  show("signin");
}

async function signIn(button, body, after) {
  await whileBusy(button, t("app.waiting-for-your-passkey"), async () => {
    clearMessages();
    try {
      await assert(body);
      signedIn();
      after();
    } catch (error) {
      warn(explain(error));
    }
  });
}

async function start() {
  const views = setUpViews({ adminApi, show, scopes, explain });
  $("nav-accounts").addEventListener("click", () => { clearMessages(); views.accounts(); });
  $("nav-audit").addEventListener("click", () => { clearMessages(); views.audit(); });
  $("nav-keys").addEventListener("click", () => { clearMessages(); views.keys(); });
  $("logout").addEventListener("click", async () => {
    try { await api("DELETE", "/admin/api/session"); } catch { /* signed out either way */ }
    signedOut();
    say(t("oidc.signed-out"));
  });
  if (location.pathname.endsWith("/admin/setup")) {
    // The code is after '#': it never reached a server log. It leaves the address bar at once.
    const code = location.hash.slice(1);
    history.replaceState(null, "", "/admin/setup");
    show("setup");
    if (!code) warn(t("admin.this-setup-link-has-no"));
    $("setup-signin").addEventListener("click", (event) => signIn(event.currentTarget, { setupCode: code }, () => {
      history.replaceState(null, "", "/admin");
      say(t("admin.you-are-the-administrator-now"));
      views.accounts();
    }));
    return;
  }
  $("signin").addEventListener("click", (event) => signIn(event.currentTarget, {}, () => views.accounts()));
  try {
    session = await api("GET", "/admin/api/session");
    signedIn();
    views.accounts();
  } catch {
    signedOut();
  }
}

start();
