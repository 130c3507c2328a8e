// The account's passkeys as a list: what each one is (name, synced or bound to one device, discoverable,
// whether it can unlock encrypted data, attestation),
// when it was made and last used, and Rename / Remove in place. Every string from the server goes in as
// text, never as HTML.

import { intlLanguage, t } from "./i18n.js";
import { button, element, isBusy, whileBusy } from "./ui.js";

const dateOnly = new Intl.DateTimeFormat(intlLanguage, { dateStyle: "medium" });
const dateAndTime = new Intl.DateTimeFormat(intlLanguage, { dateStyle: "medium", timeStyle: "short" });

// The provider's icon (from the server's AAGUID table, as files of this origin: the page's CSP keeps
// img-src 'self'), with the dark variant on dark backgrounds; where the table has none, the FIDO
// metadata's (served the same way: never its data: URL); the generic key for an unknown provider.
function providerIcon(passkey) {
  if (passkey.provider?.metadataIcon === true && !(passkey.provider.iconLight || passkey.provider.iconDark)) return metadataIcon(passkey);
  if (!passkey.provider || !(passkey.provider.iconLight || passkey.provider.iconDark)) return keyIcon();
  const base = `provider-icons/${encodeURIComponent(passkey.aaguid)}/`;
  const picture = element("picture");
  const dark = element("source");
  dark.srcset = base + "dark.svg";
  dark.media = "(prefers-color-scheme: dark)";
  const image = element("img", "provider-icon");
  image.src = base + "light.svg";
  image.alt = "";
  image.width = 24;
  image.height = 24;
  picture.append(dark, image);
  const box = element("span", "passkey-icon");
  box.setAttribute("aria-hidden", "true");
  box.append(picture);
  return box;
}

// The metadata's icon is one image (PNG, WebP or SVG) for both backgrounds.
function metadataIcon(passkey) {
  const image = element("img", "provider-icon");
  image.src = `provider-icons/${encodeURIComponent(passkey.aaguid)}/metadata`;
  image.alt = "";
  image.width = 24;
  image.height = 24;
  const box = element("span", "passkey-icon");
  box.setAttribute("aria-hidden", "true");
  box.append(image);
  return box;
}

function keyIcon() {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const ring = document.createElementNS(ns, "circle");
  for (const [k, v] of [["cx", "8"], ["cy", "12"], ["r", "4"]]) ring.setAttribute(k, v);
  const shaft = document.createElementNS(ns, "path");
  shaft.setAttribute("d", "M12 12h9m-3 0v3m-3-3v2");
  svg.append(ring, shaft);
  const box = element("span", "passkey-icon");
  box.setAttribute("aria-hidden", "true");
  box.append(svg);
  return box;
}

function badges(passkey) {
  const list = element("ul", "badges");
  list.setAttribute("aria-label", t("passkey-list.about-this-passkey"));
  // Which password manager holds it, named by its AAGUID (the community list the server ships).
  list.append(element("li", "badge badge-provider", passkey.provider ? passkey.provider.name : t("passkey-list.unknown-provider")));
  // Made in one of the Android apps the server lists (--android-app), not on a web page.
  if (passkey.androidApp) list.append(element("li", "badge badge-origin", t("passkey-list.android-app-androidapp", { androidApp: passkey.androidApp })));
  // Backup state (the BS flag, refreshed at every login): a synced passkey survives losing the device.
  list.append(element("li", "badge badge-backup", passkey.backedUp ? t("passkey-list.synced-passkey") : t("passkey-list.this-device-only")));
  // What the browser said when the passkey was made (credProps, prf); nothing where it did not say.
  if (passkey.discoverable !== null && passkey.discoverable !== undefined) {
    list.append(element("li", "badge badge-discoverable", passkey.discoverable ? t("passkey-list.discoverable") : t("passkey-list.not-discoverable")));
  }
  // Its PRF gives an app a key of its own to unlock data encrypted end to end (WebAuthn's prf extension).
  if (passkey.prfEnabled === true) list.append(element("li", "badge badge-prf", t("passkey-list.can-unlock-encrypted-data")));
  // A format whose chain no configured anchor vouched for says only what the authenticator claims.
  if (passkey.attestationFormat !== "none") {
    list.append(element("li", "badge", t("passkey-list.attestationformat-attestation-p1", { attestationFormat: passkey.attestationFormat, p1: passkey.attestationVerified ? "(verified)" : t("passkey-list.not-verified") })));
  }
  return list;
}

function dates(passkey) {
  const used = passkey.lastUsedAt ? t("passkey-list.last-used-p0", { p0: dateAndTime.format(new Date(passkey.lastUsedAt)) }) : t("passkey-list.not-used-to-log-in");
  // A change of backup state seen at a login is worth saying: the passkey started or stopped syncing.
  const changed = passkey.backupStateChangedAt
    ? t(passkey.backedUp ? "passkey-list.synced-since" : "passkey-list.device-only-since", { when: dateAndTime.format(new Date(passkey.backupStateChangedAt)) })
    : "";
  return element("p", "passkey-meta", t("passkey-list.created-p0-used-changed", { p0: dateOnly.format(new Date(passkey.createdAt)), used, changed }));
}

// Shows `passkeys` in `list`. `actions.rename(passkey, name)` and `actions.remove(passkey)` run the
// requests and return whether they succeeded; the list is drawn again by the caller afterwards.
export function renderPasskeys(list, passkeys, actions) {
  list.replaceChildren(...passkeys.map((passkey) => item(passkey, passkeys.length, actions)));
  document.getElementById("last-passkey-hint").hidden = passkeys.length !== 1;
}

function item(passkey, count, actions) {
  const row = element("li", "passkey");
  row.dataset.id = passkey.id;
  const body = element("div", "passkey-body");
  const name = element("h3", "passkey-name", passkey.name);
  const controls = element("div", "passkey-actions");
  body.append(name, badges(passkey), dates(passkey), controls);
  row.append(providerIcon(passkey), body);

  const showButtons = () => {
    const rename = button(t("passkey-list.rename"), "button-small", () => showRename(rename));
    rename.setAttribute("aria-label", t("passkey-list.rename-name", { name: passkey.name }));
    const remove = button(t("passkey-list.remove"), "button-small", () => showConfirm(remove));
    remove.setAttribute("aria-label", t("passkey-list.remove-name", { name: passkey.name }));
    if (count === 1) {
      remove.disabled = true;
      remove.setAttribute("aria-describedby", "last-passkey-hint");
    }
    controls.replaceChildren(rename, remove);
    return { rename, remove };
  };

  const showRename = () => {
    const form = element("form", "passkey-rename");
    form.noValidate = true;
    const field = element("input");
    field.id = `rename-${passkey.id}`;
    field.value = passkey.name;
    field.required = true;
    field.autocomplete = "off";
    const label = element("label", "", t("passkey-list.new-name-for-name", { name: passkey.name }));
    label.htmlFor = field.id;
    const save = element("button", "button-small button-primary", t("passkey-list.save-name"));
    save.type = "submit";
    const cancel = button(t("passkey-list.cancel"), "button-small", () => { showButtons().rename.focus(); });
    const buttons = element("div", "buttons");
    buttons.append(save, cancel);
    form.append(label, field, buttons);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (isBusy(save)) return;
      await whileBusy(save, t("app.saving"), () => actions.rename(passkey, field.value));
    });
    form.addEventListener("keydown", (event) => { if (event.key === "Escape") { event.preventDefault(); showButtons().rename.focus(); } });
    controls.replaceChildren(form);
    field.focus();
    field.select();
  };

  const showConfirm = () => {
    const question = element("p", "passkey-confirm", t("passkey-list.remove-name-it-stops-working", { name: passkey.name }));
    const yes = button(t("passkey-list.remove-passkey"), "button-small button-danger", async () => {
      await whileBusy(yes, t("app-list.removing"), () => actions.remove(passkey));
    });
    const no = button(t("app-list.keep-it"), "button-small", () => { showButtons().remove.focus(); });
    controls.replaceChildren(question, yes, no);
    no.focus();
  };

  showButtons();
  return row;
}
