// The browser's WebAuthn, as the page uses it: options from the server's JSON, credentials back to
// JSON, what this browser can do, and the signals that keep its passkey manager in step (WebAuthn L3
// §5.1.10). Every call here falls back quietly where a browser lacks a Level 3 method.

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

export function creationOptions(json) {
  if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  return {
    ...json,
    challenge: b64url.decode(json.challenge),
    user: { ...json.user, id: b64url.decode(json.user.id) },
    excludeCredentials: (json.excludeCredentials || []).map((c) => ({ ...c, id: b64url.decode(c.id) })),
  };
}

// The prf extension's salts (WebAuthn L3 §10.1.4) as buffers, for browsers without the JSON helpers.
function prfValues(values) {
  const decoded = { first: b64url.decode(values.first) };
  if (values.second) decoded.second = b64url.decode(values.second);
  return decoded;
}

function prfInputs(prf) {
  const inputs = {};
  if (prf.eval) inputs.eval = prfValues(prf.eval);
  if (prf.evalByCredential) {
    inputs.evalByCredential = Object.fromEntries(Object.entries(prf.evalByCredential).map(([id, values]) => [id, prfValues(values)]));
  }
  return inputs;
}

export function requestOptions(json) {
  if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  const options = {
    ...json,
    challenge: b64url.decode(json.challenge),
    allowCredentials: (json.allowCredentials || []).map((c) => ({ ...c, id: b64url.decode(c.id) })),
  };
  if (json.extensions?.prf) options.extensions = { ...json.extensions, prf: prfInputs(json.extensions.prf) };
  return options;
}

// The extension outputs with the prf extension's results (buffers) as base64url, as toJSON() gives them.
function extensionResultsJSON(results) {
  const values = results?.prf?.results;
  if (!values || typeof values.first === "string") return results;
  const encoded = { first: b64url.encode(values.first) };
  if (values.second) encoded.second = b64url.encode(values.second);
  return { ...results, prf: { ...results.prf, results: encoded } };
}

export function credentialJSON(credential) {
  if (typeof credential.toJSON === "function") {
    try {
      const json = credential.toJSON();
      // A browser whose toJSON() predates prf leaves its buffers unencoded: encode them from the source.
      const results = json.clientExtensionResults?.prf?.results;
      if (results && typeof results.first !== "string") json.clientExtensionResults = extensionResultsJSON(credential.getClientExtensionResults());
      return json;
    } catch { /* fall through to the manual form */ }
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
    clientExtensionResults: extensionResultsJSON(credential.getClientExtensionResults()), response,
  };
}

// What this browser offers. `getClientCapabilities` (L3) answers every question at once where it
// exists; older browsers answer the autofill one through `isConditionalMediationAvailable`; a browser
// with neither simply gets no autofill, and none gets the immediate sign-in or the conditional create
// without `getClientCapabilities` saying so.
//   conditionalGet: passkey autofill in the name field (`mediation: "conditional"` on get)
//   immediateGet: a sign-in that shows the browser's account chooser only when a passkey is at hand, and
//     otherwise fails at once with NotAllowedError (`uiMode: "immediate"`: see `immediateRequest`)
//   conditionalCreate: a passkey the password manager may save without a dialog (`mediation:
//     "conditional"` on create)
export async function capabilities() {
  if (!window.PublicKeyCredential || !navigator.credentials?.create || !navigator.credentials?.get) {
    return { webauthn: false, conditionalGet: false, immediateGet: false, conditionalCreate: false, secureContext: window.isSecureContext };
  }
  let reported = {};
  if (typeof PublicKeyCredential.getClientCapabilities === "function") {
    try { reported = (await PublicKeyCredential.getClientCapabilities()) ?? {}; } catch { /* ask the older way */ }
  }
  let conditionalGet = reported.conditionalGet === true;
  if (!conditionalGet && typeof PublicKeyCredential.isConditionalMediationAvailable === "function") {
    try { conditionalGet = await PublicKeyCredential.isConditionalMediationAvailable(); } catch { conditionalGet = false; }
  }
  return {
    webauthn: true, conditionalGet, immediateGet: reported.immediateGet === true,
    conditionalCreate: reported.conditionalCreate === true, secureContext: window.isSecureContext,
  };
}

// The request of an immediate sign-in. The immediate-mediation proposal (w3c/webauthn#2291) began as
// `mediation: "immediate"`; what Chromium ships (148 and later) is `uiMode: "immediate"` beside the usual
// mediation, and it refuses "immediate" as a mediation value with a TypeError. `uiMode` is the safe one:
// a browser that does not know the member ignores it and shows its usual dialog. Chromium wants a user
// activation (a click) for it, an empty allowCredentials, and no conditional request running.
export const immediateRequest = (publicKey) => ({ publicKey, uiMode: "immediate" });

// ---- signals to the browser's passkey manager; each says whether the browser took it ----
async function signal(method, argument) {
  if (typeof window.PublicKeyCredential?.[method] !== "function") return false;
  try { await PublicKeyCredential[method](argument); return true; } catch { return false; }
}

// The server does not know this passkey (its account or the passkey was deleted elsewhere).
export const signalUnknownCredential = (rpId, credentialId) => signal("signalUnknownCredential", { rpId, credentialId });

// The account's passkeys now: the manager may hide or remove the others (an empty list after the
// account is deleted).
export const signalAllAcceptedCredentials = (rpId, userId, ids) =>
  signal("signalAllAcceptedCredentials", { rpId, userId, allAcceptedCredentialIds: ids });

// The account's current names, so the manager's list shows the new display name. The server uses the
// display name as WebAuthn's user.name as well.
export const signalCurrentUserDetails = (rpId, userId, displayName) =>
  signal("signalCurrentUserDetails", { rpId, userId, name: displayName, displayName });
