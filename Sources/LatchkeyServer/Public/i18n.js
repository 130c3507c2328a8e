// The page's words in the person's language. The server picks the language (GET locale.json: the choice
// remembered from the picker, else Accept-Language, else --default-language) and sends its catalogue with
// English under it, so a key a catalogue lacks still reads as English. This module waits for the
// catalogue (top-level await): every module that imports it runs after the page is already translated.
//
// A message is a string with {name} parameters, or an object of plural forms keyed by CLDR category
// ("one", "few", "many", "other", …) chosen with Intl.PluralRules by the parameter `count`. In the HTML an
// element with data-i18n="key" gets its message; {0}, {1} in it stand for the element's own child
// elements, in order (a <strong>, a <span> the script fills), which keep their own data-i18n.

const STORAGE_KEY = "latchkey.language";

function remembered() {
  try { return localStorage.getItem(STORAGE_KEY); } catch { return null; }
}

async function load() {
  const choice = remembered();
  const url = new URL("locale.json", import.meta.url);
  if (choice) url.searchParams.set("language", choice);
  try {
    const reply = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (reply.ok) return await reply.json();
  } catch {
    // No catalogue: the HTML's own English stays, and t() answers with the key.
  }
  return { language: "en", direction: "ltr", brand: null, languages: [], messages: {} };
}

const locale = await load();
export const language = locale.language;
export const direction = locale.direction === "rtl" ? "rtl" : "ltr";
export const languages = Array.isArray(locale.languages) ? locale.languages : [];
export const brand = typeof locale.brand === "string" && locale.brand ? locale.brand : "Latchkey";
const messages = locale.messages && typeof locale.messages === "object" ? locale.messages : {};

// The pseudo-locale is English underneath: its numbers and dates are formatted as English ones.
export const intlLanguage = language === "en-XA" ? "en" : language;
const formatLanguage = intlLanguage;
const plurals = new Intl.PluralRules(formatLanguage);
const numbers = new Intl.NumberFormat(formatLanguage);
const dates = new Intl.DateTimeFormat(formatLanguage, { dateStyle: "medium", timeStyle: "short" });

function formatted(value) {
  if (typeof value === "number") return numbers.format(value);
  if (value instanceof Date) return dates.format(value);
  return String(value);
}

/// The message `key` with `params` in place of its {name}s; {brand} is the service's name.
export function t(key, params = {}) {
  let message = messages[key];
  if (message !== null && typeof message === "object") {
    message = message[plurals.select(Number(params.count ?? 0))] ?? message.other;
  }
  if (typeof message !== "string") return key;
  return message.replace(/\{([A-Za-z][A-Za-z0-9_]*)\}/g, (whole, name) => {
    if (Object.prototype.hasOwnProperty.call(params, name)) return formatted(params[name]);
    return name === "brand" ? brand : whole;
  });
}

export const formatNumber = (value) => numbers.format(value);
export const formatDate = (date, options) => (options ? new Intl.DateTimeFormat(formatLanguage, options) : dates).format(date);
/// A list in the language's words ("a, b or c"): Intl.ListFormat's disjunction.
export const formatList = (items, type = "conjunction") =>
  typeof Intl.ListFormat === "function" ? new Intl.ListFormat(formatLanguage, { type }).format(items) : items.join(", ");

/// Puts every data-i18n element's message in it, and the language and direction on <html>.
export function localise(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) {
    node.i18nChildren ??= [...node.children];
    const parts = t(node.dataset.i18n).split(/\{(\d+)\}/);
    const content = parts.map((part, index) => (index % 2 === 1 ? node.i18nChildren[Number(part)] : part));
    node.replaceChildren(...content.filter((part) => part !== undefined && part !== ""));
  }
  for (const node of root.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  for (const node of root.querySelectorAll(".brand-name")) node.textContent = brand;
}

/// The operator's logo (--brand-logo) in place of Latchkey's mark, and the favicon (--brand-favicon).
function brandImages() {
  if (locale.logo) {
    for (const mark of document.querySelectorAll(".brand-mark")) {
      const logo = document.createElement("img");
      logo.className = "brand-logo";
      logo.src = new URL("brand/logo", import.meta.url).href;
      logo.alt = "";
      mark.replaceWith(logo);
    }
  }
  if (locale.favicon) {
    const icon = document.createElement("link");
    icon.rel = "icon";
    icon.href = new URL("brand/favicon", import.meta.url).href;
    document.head.append(icon);
  }
}

/// The language picker: a <select> of every shipped language, each named in itself; a choice is
/// remembered in this browser and the page reloads in it.
export function setUpPicker(select) {
  if (!select) return;
  for (const entry of languages) {
    const option = document.createElement("option");
    option.value = entry.code;
    option.lang = entry.code;
    option.textContent = entry.name;
    option.selected = entry.code === language;
    select.append(option);
  }
  select.hidden = languages.length < 2;
  select.addEventListener("change", () => {
    try { localStorage.setItem(STORAGE_KEY, select.value); } catch { /* not remembered: this page only */ }
    location.reload();
  });
}

document.documentElement.lang = language;
document.documentElement.dir = direction;
localise();
brandImages();
