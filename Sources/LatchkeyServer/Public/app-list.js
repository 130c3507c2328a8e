// "Apps with access": the OpenID Connect clients the person let in (GET /api/account/apps), what each
// may learn, when it was allowed and last used, and Remove access in place — drawn like the passkey list.
// Every string from the server goes in as text, never as HTML.

import { intlLanguage, t } from "./i18n.js";
import { scopeLabel } from "./scopes.js";
import { button, element, whileBusy } from "./ui.js";

const dateOnly = new Intl.DateTimeFormat(intlLanguage, { dateStyle: "medium" });
const dateAndTime = new Intl.DateTimeFormat(intlLanguage, { dateStyle: "medium", timeStyle: "short" });

function appIcon() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const frame = document.createElementNS(ns, "rect");
  for (const [k, v] of [["x", "4"], ["y", "4"], ["width", "16"], ["height", "16"], ["rx", "3"]]) frame.setAttribute(k, v);
  const arrow = document.createElementNS(ns, "path");
  arrow.setAttribute("d", "M10 9l3 3-3 3m3-3H8");
  svg.append(frame, arrow);
  const box = element("span", "passkey-icon");
  box.setAttribute("aria-hidden", "true");
  box.append(svg);
  return box;
}

// The app's own logo, when an operator gave it one: an image of this origin, decorative (its name is the
// heading beside it).
function appLogo(path) {
  const box = element("span", "passkey-icon");
  const image = document.createElement("img");
  image.src = new URL(path, import.meta.url).href;
  image.alt = "";
  image.className = "app-logo";
  box.append(image);
  return box;
}

// Shows `apps` in `list` (the empty text when there are none). `remove(app)` runs the request and
// returns whether it succeeded; the list is drawn again by the caller afterwards.
export function renderApps(list, apps, { remove }) {
  list.replaceChildren(...apps.map((app) => item(app, remove)));
  document.getElementById("apps-empty").hidden = apps.length !== 0;
}

function item(app, remove) {
  const row = element("li", "passkey");
  row.dataset.clientId = app.clientId;
  const body = element("div", "passkey-body");
  const scopes = element("ul", "badges");
  scopes.setAttribute("aria-label", t("app-list.what-name-may-learn", { name: app.name }));
  for (const scope of app.scopes) scopes.append(element("li", "badge", scopeLabel(scope)));
  const used = app.lastUsedAt ? t("app-list.last-used", { when: dateAndTime.format(new Date(app.lastUsedAt)) }) : t("app-list.not-used-yet");
  const meta = element("p", "passkey-meta", t("app-list.allowed-p0-used", { p0: dateOnly.format(new Date(app.consentedAt)), used }));
  const controls = element("div", "passkey-actions");
  body.append(element("h3", "passkey-name", app.name), scopes, meta, controls);
  row.append(app.logo ? appLogo(app.logo) : appIcon(), body);

  const showButton = () => {
    const ask = button(t("app-list.remove-access"), "button-small", () => showConfirm());
    ask.setAttribute("aria-label", t("app-list.remove-access-for-name", { name: app.name }));
    controls.replaceChildren(ask);
    return ask;
  };

  const showConfirm = () => {
    const question = element("p", "passkey-confirm", t("app-list.remove-access-for-name-it", { name: app.name }));
    const yes = button(t("app-list.remove-access"), "button-small button-danger", async () => {
      await whileBusy(yes, t("app-list.removing"), () => remove(app));
    });
    const no = button(t("app-list.keep-it"), "button-small", () => { showButton().focus(); });
    controls.replaceChildren(question, yes, no);
    no.focus();
  };

  showButton();
  return row;
}
