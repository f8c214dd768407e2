import assert from "node:assert/strict";
import { test } from "node:test";

import { Codes, TPError, parseFrame, resultErr, resultOk } from "../background/protocol.js";

test("parseFrame keeps a well-formed command", () => {
  const frame = { type: "command", id: "c1", op: "dom.click", params: { selector: "#go" }, timeout_ms: 5000 };
  assert.deepEqual(parseFrame(JSON.stringify(frame)), frame);
});

test("parseFrame refuses a command without an id, an op or params", () => {
  for (const frame of [
    { type: "command", op: "dom.click", params: {} },
    { type: "command", id: 7, op: "dom.click", params: {} },
    { type: "command", id: "c1", params: {} },
    { type: "command", id: "c1", op: "dom.click" },
    { type: "command", id: "c1", op: "dom.click", params: "selector" },
  ]) {
    assert.equal(parseFrame(JSON.stringify(frame)), null, JSON.stringify(frame));
  }
});

test("parseFrame checks a challenge's nonce and proofs", () => {
  assert.ok(parseFrame(JSON.stringify({ type: "challenge", server_nonce: "ab", app_proofs: [] })));
  assert.equal(parseFrame(JSON.stringify({ type: "challenge", server_nonce: "ab" })), null);
  assert.equal(parseFrame(JSON.stringify({ type: "challenge", app_proofs: ["x"] })), null);
});

test("parseFrame passes the app's other frames and drops what it does not know", () => {
  for (const type of ["welcome", "refused", "state", "pong"]) assert.equal(parseFrame(JSON.stringify({ type }))?.type, type);
  assert.equal(parseFrame(JSON.stringify({ type: "hello" })), null); // the extension's own frame
  assert.equal(parseFrame(JSON.stringify({ type: 3 })), null);
  assert.equal(parseFrame("[1, 2]"), null);
  assert.equal(parseFrame("null"), null);
  assert.equal(parseFrame("{not json"), null);
});

test("resultOk carries the data, and an empty object for none", () => {
  assert.deepEqual(resultOk("c1", { clicked: true }), { type: "result", id: "c1", ok: true, data: { clicked: true } });
  assert.deepEqual(resultOk("c2", undefined), { type: "result", id: "c2", ok: true, data: {} });
  assert.deepEqual(resultOk("c3", null), { type: "result", id: "c3", ok: true, data: {} });
});

test("resultErr keeps a TPError's code, message and details", () => {
  const err = new TPError(Codes.ELEMENT_NOT_FOUND, "Nothing matches '#x'.", { selector: "#x" });
  assert.deepEqual(resultErr("c1", err), {
    type: "result",
    id: "c1",
    ok: false,
    error: { code: "element_not_found", message: "Nothing matches '#x'.", details: { selector: "#x" } },
  });
  assert.equal("details" in resultErr("c1", new TPError(Codes.TIMEOUT, "late")).error, false);
});

test("resultErr turns any other error into internal", () => {
  assert.deepEqual(resultErr("c1", new TypeError("x is undefined")).error, {
    code: "internal",
    message: "Extension error: x is undefined",
  });
  assert.equal(resultErr("c1", "a string").error.message, "Extension error: a string");
});

test("a frame carries a page's JSON text verbatim, and nothing a page writes can take its place", async () => {
  const { RawJson, encodeFrame } = await import("../background/protocol.js");
  const rows = '[{"a":1,"b":"x\\"y"},{"a":2,"b":null}]';
  const text = encodeFrame({ type: "result", id: 3, ok: true, data: { rows: new RawJson(rows), title: "\u0000raw1-2:0" } });
  assert.deepEqual(JSON.parse(text), {
    type: "result",
    id: 3,
    ok: true,
    data: { rows: [{ a: 1, b: 'x"y' }, { a: 2, b: null }], title: "\u0000raw1-2:0" },
  });
  assert.equal(encodeFrame({ a: [1, "two"] }), JSON.stringify({ a: [1, "two"] }));
});

test("resultErr answers a browser's refusal to enter a page as not_supported with what to do, never internal", () => {
  for (const chrome of [
    'Cannot access contents of url "about:blank". Extension manifest must request permission to access this host.',
    "Frame with ID 0 is showing error page",
    "The extensions gallery cannot be scripted.",
    "Cannot access a chrome:// URL",
  ]) {
    const wire = resultErr("c1", new Error(chrome)).error;
    assert.equal(wire.code, "not_supported", chrome);
    assert.match(wire.message, /keeps extensions out of this page .*Navigate the tab/, chrome);
  }
});
