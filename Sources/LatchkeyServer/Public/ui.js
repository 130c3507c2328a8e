import { t } from "./i18n.js";
// The page's small building blocks: messages, busy buttons, live character counts, the dialog's focus.

export const $ = (id) => document.getElementById(id);

// ---- building the lists (passkeys, apps, activity): elements with their class and text, buttons ----
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function button(text, className, onClick) {
  const node = element("button", className, text);
  node.type = "button";
  node.addEventListener("click", onClick);
  return node;
}

// ---- messages: one success line (polite) and one error line (assertive); one of them at a time ----
export function say(message) { $("error").textContent = ""; $("status").textContent = message; }
export function warn(message) { $("status").textContent = ""; $("error").textContent = message; }
export function clearMessages() { $("status").textContent = ""; $("error").textContent = ""; }

// ---- busy and unavailable buttons ----
// While its request runs a button shows a spinner and a word for what is happening, and ignores further
// presses. It is marked aria-disabled rather than disabled so that it keeps the keyboard focus.
export async function whileBusy(button, label, work) {
  if (isBusy(button)) return undefined;
  const original = button.textContent;
  const unavailable = button.getAttribute("aria-disabled");
  button.setAttribute("aria-disabled", "true");
  button.classList.add("busy");
  button.textContent = label;
  try {
    return await work();
  } finally {
    button.classList.remove("busy");
    if (unavailable === null) button.removeAttribute("aria-disabled"); else button.setAttribute("aria-disabled", unavailable);
    button.textContent = original;
  }
}

export const isBusy = (button) => button.classList.contains("busy");

// A button that has nothing to do yet (Save with nothing changed). Not `disabled`: a disabled button
// drops the keyboard focus, which is exactly what happens to Save right after it saved.
export function setUnavailable(button, unavailable) {
  if (isBusy(button)) return;
  button.setAttribute("aria-disabled", unavailable ? "true" : "false");
}

export const isUnavailable = (button) => button.getAttribute("aria-disabled") === "true";

// ---- character counts ----
// The server counts characters as people see them (grapheme clusters: 👩‍👩‍👧 is one) and also caps the
// UTF-8 bytes at four a character; the count here is the same, so the page says "too long" exactly
// when the server would.
const graphemes = typeof Intl.Segmenter === "function" ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;
const utf8 = new TextEncoder();

export function characters(text) {
  if (!graphemes) return [...text].length;
  let count = 0;
  for (const _ of graphemes.segment(text)) count += 1;
  return count;
}

// Keeps the counter below `field` current and returns whether the value fits.
export function countCharacters(field, counter, { trim = false } = {}) {
  const value = trim ? field.value.trim() : field.value;
  const limit = Number(counter.dataset.limit);
  const count = characters(value);
  const over = count > limit || utf8.encode(value).length > 4 * limit;
  counter.textContent = over ? t("ui.count-of-limit-characters-too", { count, limit }) : t("ui.count-of-limit-characters", { count, limit });
  counter.classList.toggle("over", over);
  field.setAttribute("aria-invalid", over ? "true" : "false");
  return !over;
}

// ---- the modal dialog ----
// showModal() makes the rest of the page inert; Tab and Shift+Tab also wrap around inside the dialog
// (instead of leaving for the browser's own controls), Escape closes it (the browser's cancel), and the
// focus goes back to whatever opened it.
export function modal(dialog) {
  let opener = null;
  dialog.addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    const focusable = [...dialog.querySelectorAll("button, input, textarea, select, a[href]")].filter((e) => !e.disabled);
    if (focusable.length === 0) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
    else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
  });
  dialog.addEventListener("close", () => { if (opener?.isConnected) opener.focus(); opener = null; });
  return {
    open() { opener = document.activeElement; dialog.showModal(); },
    close() { dialog.close(); },
  };
}
