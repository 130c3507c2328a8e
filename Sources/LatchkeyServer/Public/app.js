// Latchkey's page: passkeys with the browser's own WebAuthn, the session in the server's HttpOnly
// cookie (this script never sees or stores a token), every server error shown as the server wrote it.

const $ = (id) => document.getElementById(id);

// ---- base64url, for browsers without the JSON helpers of WebAuthn Level 3 ----
const b64url = {
  encode(buffer) {
    const bytes = new Uint8Array(buffer);
    let text = "";
    for (const b of bytes) text += String.fromCharCode(b);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  },
  decode(text) {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)).buffer;
  },
};

function creationOptions(json) {
  if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  return {
    ...json,
    challenge: b64url.decode(json.challenge),
    user: { ...json.user, id: b64url.decode(json.user.id) },
    excludeCredentials: (json.excludeCredentials || []).map((c) => ({ ...c, id: b64url.decode(c.id) })),
  };
}

function requestOptions(json) {
  if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  return {
    ...json,
    challenge: b64url.decode(json.challenge),
    allowCredentials: (json.allowCredentials || []).map((c) => ({ ...c, id: b64url.decode(c.id) })),
  };
}

function credentialJSON(credential) {
  if (typeof credential.toJSON === "function") {
    try { return credential.toJSON(); } catch { /* fall through to the manual form */ }
  }
  const r = credential.response;
  const response = { clientDataJSON: b64url.encode(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = b64url.encode(r.attestationObject);
    if (r.getTransports) response.transports = r.getTransports();
  } else {
    response.authenticatorData = b64url.encode(r.authenticatorData);
    response.signature = b64url.encode(r.signature);
    if (r.userHandle) response.userHandle = b64url.encode(r.userHandle);
  }
  return {
    id: credential.id, rawId: b64url.encode(credential.rawId), type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(), response,
  };
}

// ---- the API ----
class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

async function api(method, path, body) {
  const init = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) {
    throw new ApiError(response.status, data?.error?.code ?? "http_" + response.status, data?.error?.message ?? `The server answered ${response.status}.`);
  }
  return data;
}

// ---- what the page shows ----
let account = null;
let passkeys = [];
let rpId = location.hostname;
let conditional = null;

function status(message) { $("error").textContent = ""; $("status").textContent = message; }
function error(message) { $("status").textContent = ""; $("error").textContent = message; }

function explain(e) {
  if (e instanceof ApiError) return e.message;
  if (e?.name === "NotAllowedError") return "The passkey request was cancelled or timed out.";
  if (e?.name === "InvalidStateError") return "This authenticator already holds a passkey for this account.";
  return e?.message || String(e);
}

// Passkey autofill starts with the page and again whenever the name field gains focus — never by
// itself after a logout or a failed login, so an autofill that resolves at once cannot sign the person
// straight back in or repeat a failure in a loop.
function showWelcome({ autofill = false } = {}) {
  account = null;
  passkeys = [];
  $("account").hidden = true;
  $("welcome").hidden = false;
  $("register").disabled = $("passkey-name").value.trim() === "";
  if (autofill) startConditionalLogin();
}

function showAccount(data) {
  cancelConditionalLogin();
  account = data;
  $("welcome").hidden = true;
  $("account").hidden = false;
  $("display-name").value = account.displayName;
  $("credo").value = account.credo;
  refreshUpdateButton();
  loadPasskeys();
}

function refreshUpdateButton() {
  const name = $("display-name").value.trim();
  const changed = account && (name !== account.displayName || $("credo").value !== account.credo);
  $("update").disabled = !changed || name === "";
}

function renderPasskeys() {
  const list = $("passkeys");
  list.replaceChildren();
  for (const passkey of passkeys) {
    const item = document.createElement("li");
    const name = document.createElement("input");
    name.value = passkey.name;
    name.maxLength = 64;
    name.setAttribute("aria-label", `Name of passkey ${passkey.name}`);
    const rename = document.createElement("button");
    rename.type = "button";
    rename.textContent = "Rename";
    rename.addEventListener("click", () => renamePasskey(passkey, name.value));
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "Remove";
    remove.disabled = passkeys.length === 1;
    remove.title = passkeys.length === 1 ? "An account keeps at least one passkey" : "";
    remove.addEventListener("click", () => removePasskey(passkey));
    const meta = document.createElement("span");
    meta.className = "meta";
    const used = passkey.lastUsedAt ? new Date(passkey.lastUsedAt).toLocaleString() : "never";
    // A format whose chain no configured anchor vouched for says only what the authenticator claims.
    const attestation = passkey.attestationFormat === "none" ? ""
      : ` · ${passkey.attestationFormat} attestation${passkey.attestationVerified ? " (verified)" : " (not verified)"}`;
    meta.textContent = `${passkey.backedUp ? "Synced" : "This device only"} · created ${new Date(passkey.createdAt).toLocaleDateString()} · last used ${used}${attestation}`;
    item.append(name, rename, remove, meta);
    list.append(item);
  }
}

async function loadPasskeys() {
  try {
    passkeys = await api("GET", "/api/account/passkeys");
    renderPasskeys();
  } catch (e) { error(explain(e)); }
}

// ---- signals to the browser's passkey manager (WebAuthn L3 §5.1.10) ----
async function signalUnknown(credentialId) {
  if (PublicKeyCredential.signalUnknownCredential) {
    try { await PublicKeyCredential.signalUnknownCredential({ rpId, credentialId }); return true; } catch { /* unsupported here */ }
  }
  return false;
}

async function signalAccepted(ids) {
  if (!account?.userHandle) return false;
  if (PublicKeyCredential.signalAllAcceptedCredentials) {
    try {
      await PublicKeyCredential.signalAllAcceptedCredentials({ rpId, userId: account.userHandle, allAcceptedCredentialIds: ids });
      return true;
    } catch { /* unsupported here */ }
  }
  return false;
}

// ---- ceremonies ----
async function register(event) {
  event.preventDefault();
  const name = $("passkey-name").value.trim();
  if (!name) return;
  cancelConditionalLogin();
  status("Creating a passkey…");
  try {
    const options = await api("POST", "/api/registration/options", { displayName: name });
    rpId = options.publicKey.rp.id ?? rpId;
    const credential = await navigator.credentials.create({ publicKey: creationOptions(options.publicKey) });
    const result = await api("POST", "/api/registration/verify", { credential: credentialJSON(credential) });
    showAccount(result.account);
    status(`Registered and signed in as ${result.account.displayName}.`);
  } catch (e) {
    error(explain(e));
  }
}

async function finishLogin(credential) {
  try {
    const result = await api("POST", "/api/login/verify", { credential: credentialJSON(credential) });
    showAccount(result.account);
    status(`Signed in as ${result.account.displayName}.`);
  } catch (e) {
    if (e instanceof ApiError && e.code === "unknown_credential") {
      const signalled = await signalUnknown(credential.id);
      error(e.message + (signalled ? " Your browser was asked to forget this passkey."
        : " Remove this passkey from your password manager: it no longer works here."));
    } else {
      error(explain(e));
    }
  }
}

async function login() {
  cancelConditionalLogin();
  status("Waiting for your passkey…");
  try {
    const options = await api("POST", "/api/login/options");
    rpId = options.publicKey.rpId ?? rpId;
    const credential = await navigator.credentials.get({ publicKey: requestOptions(options.publicKey) });
    await finishLogin(credential);
  } catch (e) {
    error(explain(e));
  }
}

// Passkey autofill: a conditional request runs while the welcome view is shown; an explicit click
// aborts it first, so the two never race for the same authenticator.
async function startConditionalLogin() {
  if (conditional || account) return;
  if (!window.PublicKeyCredential?.isConditionalMediationAvailable) return;
  let available = false;
  try { available = await PublicKeyCredential.isConditionalMediationAvailable(); } catch { available = false; }
  if (!available || account || conditional) return;
  const controller = new AbortController();
  conditional = controller;
  try {
    const options = await api("POST", "/api/login/options");
    if (controller.signal.aborted) return;
    rpId = options.publicKey.rpId ?? rpId;
    const credential = await navigator.credentials.get({
      publicKey: requestOptions(options.publicKey), mediation: "conditional", signal: controller.signal,
    });
    if (conditional === controller) conditional = null;
    await finishLogin(credential);
  } catch (e) {
    if (conditional === controller) conditional = null;
    if (e?.name !== "AbortError" && !controller.signal.aborted) error(explain(e));
  }
}

function cancelConditionalLogin() {
  if (conditional) {
    const controller = conditional;
    conditional = null;
    controller.abort();
  }
}

async function addPasskey() {
  status("Creating another passkey…");
  try {
    const options = await api("POST", "/api/registration/options", {});
    rpId = options.publicKey.rp.id ?? rpId;
    const credential = await navigator.credentials.create({ publicKey: creationOptions(options.publicKey) });
    const result = await api("POST", "/api/registration/verify", { credential: credentialJSON(credential) });
    status(`Added the passkey ${result.passkey.name}.`);
    await loadPasskeys();
  } catch (e) { error(explain(e)); }
}

async function renamePasskey(passkey, name) {
  try {
    const renamed = await api("PATCH", `/api/account/passkeys/${passkey.id}`, { name });
    status(`Renamed to ${renamed.name}.`);
    await loadPasskeys();
  } catch (e) { error(explain(e)); }
}

async function removePasskey(passkey) {
  try {
    await api("DELETE", `/api/account/passkeys/${passkey.id}`);
    await loadPasskeys();
    const signalled = await signalAccepted(passkeys.map((p) => p.id));
    status(`Removed the passkey ${passkey.name}.` + (signalled ? "" : " Also remove it from your password manager."));
  } catch (e) { error(explain(e)); }
}

// ---- the account ----
async function update(event) {
  event.preventDefault();
  if ($("update").disabled) return;
  try {
    const body = {};
    const name = $("display-name").value.trim();
    if (name !== account.displayName) body.displayName = name;
    if ($("credo").value !== account.credo) body.credo = $("credo").value;
    const updated = await api("PATCH", "/api/account", body);
    account = { ...account, ...updated };
    $("display-name").value = account.displayName;
    refreshUpdateButton();
    status("Saved.");
  } catch (e) { error(explain(e)); }
}

async function logout() {
  try {
    await api("POST", "/api/logout");
    showWelcome();
    status("Signed out.");
  } catch (e) { error(explain(e)); }
}

async function deleteAccount() {
  $("delete-dialog").close();
  try {
    const handle = account?.userHandle;
    await api("DELETE", "/api/account");
    const signalled = handle && PublicKeyCredential.signalAllAcceptedCredentials
      ? await PublicKeyCredential.signalAllAcceptedCredentials({ rpId, userId: handle, allAcceptedCredentialIds: [] }).then(() => true, () => false)
      : false;
    showWelcome();
    status("Your account was deleted." + (signalled ? "" : " Remove its passkey from your password manager too."));
  } catch (e) { error(explain(e)); }
}

// ---- start ----
async function start() {
  if (!window.PublicKeyCredential || !navigator.credentials?.create) {
    $("no-webauthn").hidden = false;
    for (const id of ["register", "login", "add-passkey"]) $(id).disabled = true;
  }
  $("passkey-name").addEventListener("input", () => { $("register").disabled = $("passkey-name").value.trim() === ""; });
  $("passkey-name").addEventListener("focus", () => startConditionalLogin());
  $("welcome-form").addEventListener("submit", register);
  $("login").addEventListener("click", login);
  $("account-form").addEventListener("submit", update);
  $("display-name").addEventListener("input", refreshUpdateButton);
  $("credo").addEventListener("input", refreshUpdateButton);
  $("logout").addEventListener("click", logout);
  $("delete").addEventListener("click", () => $("delete-dialog").showModal());
  $("cancel-delete").addEventListener("click", () => $("delete-dialog").close());
  $("confirm-delete").addEventListener("click", deleteAccount);
  $("add-passkey").addEventListener("click", addPasskey);
  try {
    showAccount(await api("GET", "/api/account"));
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401)) error(explain(e));
    if (window.PublicKeyCredential) showWelcome({ autofill: true }); else { $("welcome").hidden = false; }
  }
}

start();
