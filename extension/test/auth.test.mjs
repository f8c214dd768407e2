import assert from "node:assert/strict";
import { webcrypto } from "node:crypto";
import { test } from "node:test";

globalThis.crypto ??= webcrypto; // node 18 has WebCrypto, but not as a global

const { appProof, extensionProof, keyOf, newNonce, normalizeCode } = await import("../background/auth.js");

// Computed by the app's side (desktop/tabpilot/bridge/pairing.py) for secret "ABCD2345",
// client nonce "c0ffee", server nonce "5e7e7": both sides must agree to the bit.
const APP_PROOF = "964c6c193a9c6fbe75c56b6b296d8471f1aa8829960687f4c218a2e13993ab32";
const EXTENSION_PROOF = "7b076181536906d193f848db94ae70156e428de5ff6ab310f5c34a0878f6e7e2";

test("the proofs are the app's: HMAC-SHA256 keyed with sha256(secret), in hex", async () => {
  const key = await keyOf("ABCD2345");
  assert.equal(await appProof(key, "c0ffee", "5e7e7"), APP_PROOF);
  assert.equal(await extensionProof(key, "c0ffee", "5e7e7"), EXTENSION_PROOF);
});

test("the two directions never give the same proof", async () => {
  const key = await keyOf("secret");
  assert.notEqual(await appProof(key, "a", "b"), await extensionProof(key, "a", "b"));
  assert.notEqual(await appProof(key, "a", "b"), await appProof(key, "b", "a"));
});

test("a nonce is 16 random bytes in hex", () => {
  const a = newNonce();
  assert.match(a, /^[0-9a-f]{32}$/);
  assert.notEqual(a, newNonce());
});

test("a typed pairing code is upper-cased and stripped of everything but letters and digits", () => {
  assert.equal(normalizeCode("abcd-2345 "), "ABCD2345");
  assert.equal(normalizeCode(" ab cd\t23_45"), "ABCD2345");
  assert.equal(normalizeCode(undefined), "");
  assert.equal(normalizeCode(null), "");
});
