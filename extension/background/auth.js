// @ts-check
// Mutual proof of a shared secret (see desktop/tabpilot/bridge/pairing.py): the app proves it first,
// so this extension never obeys a program that merely listens on the app's port.
const encoder = new TextEncoder();

async function sha256(text) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

async function hmacHex(keyBytes, message) {
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
  return Array.from(signature, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function newNonce() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function normalizeCode(code) {
  return String(code ?? "")
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "");
}

/** The key both sides derive from the secret: sha256(secret). */
export function keyOf(secret) {
  return sha256(secret);
}

export function appProof(key, clientNonce, serverNonce) {
  return hmacHex(key, `tabpilot-app|${clientNonce}|${serverNonce}`);
}

export function extensionProof(key, clientNonce, serverNonce) {
  return hmacHex(key, `tabpilot-ext|${serverNonce}|${clientNonce}`);
}
