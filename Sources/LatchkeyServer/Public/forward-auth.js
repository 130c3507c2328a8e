// Signing in for an app behind a reverse proxy (forward authentication). The proxy asked the server
// (GET /api/forward-auth) and was told to send the person here, to /forward-auth?rd=ADDRESS. This page
// asks the server what comes next for that address (GET api/forward-auth/verdict: the session cookie
// goes along, which it may not have on the cross-site redirect), signs the person in (again, for a rule's
// max-age) when needed, and sends them back — or says which groups may open the site.
// `document.body.dataset.forwardAuth` says where the flow is: "asking", "login", "redirecting",
// "refused", "error" (the browser tests wait on it).

import { t } from "./i18n.js";
import { api, ApiError } from "./api.js";
import { $ } from "./ui.js";

export const isForwardAuthPage = () => /\/forward-auth$/.test(location.pathname);

const setState = (state) => { document.body.dataset.forwardAuth = state; };

function show(title, message) {
  $("welcome").hidden = true;
  $("forward-auth").hidden = false;
  $("forward-auth-title").textContent = title;
  $("forward-auth-message").textContent = message;
  $("forward-auth-title").focus();
}

function quoted(groups) {
  return groups.map((group) => `“${group}”`).join(", ");
}

// `hooks.showSignIn(context, next)` shows the sign-in view and calls `next` once the person signed in;
// `hooks.explain` turns a failure into a sentence.
export async function forwardAuth(hooks) {
  const target = new URLSearchParams(location.search).get("rd") ?? "";
  const ask = async () => {
    setState("asking");
    let reply;
    try {
      reply = await api("GET", "api/forward-auth/verdict?rd=" + encodeURIComponent(target));
    } catch (e) {
      setState("error");
      show(t("forward-auth.this-sign-in-cannot-continue"), e instanceof ApiError ? e.message : hooks.explain(e));
      return;
    }
    if (reply.verdict === "pass") {
      setState("redirecting");
      show(t("forward-auth.signed-in"), t("forward-auth.taking-you-back-to-host", { host: reply.host }));
      location.assign(reply.redirect);
    } else if (reply.verdict === "refused") {
      setState("refused");
      show(t("forward-auth.you-cannot-open-this-site"), reply.groups.length
        ? t("forward-auth.only-members-of-p0-p1", { p0: reply.groups.length === 1 ? t("forward-auth.the-group") : t("forward-auth.one-of-the-groups"), p1: quoted(reply.groups), host: reply.host })
        : t("forward-auth.nobody-may-open-host-through", { host: reply.host }));
    } else {
      setState("login");
      $("forward-auth").hidden = true;
      hooks.showSignIn(reply.verdict === "fresh-sign-in"
        ? t("forward-auth.host-asks-for-your-passkey", { host: reply.host })
        : t("forward-auth.sign-in-to-continue-to", { host: reply.host }), ask);
    }
  };
  await ask();
}
