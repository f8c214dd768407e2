// content/locate.js in node: its selector chains and refs, over a tiny stand-in for the DOM.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

class PageError extends Error {
  constructor(code, message, details) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/** An element that matches the selectors listed in `matches` and holds `kids` (and maybe a shadow root). */
function el(name, matches = [], kids = [], shadowKids = null) {
  const node = {
    localName: name,
    isConnected: true,
    kids,
    matches: (sel) => matches.includes(sel),
    querySelectorAll(sel) {
      const out = [];
      const walk = (n) => {
        for (const k of n.kids) {
          if (sel === "*" || k.matches(sel)) out.push(k);
          walk(k);
        }
      };
      if (sel.includes("[")) throw new SyntaxError("bad");
      walk(node);
      return out;
    },
    contains: () => true,
  };
  if (shadowKids) node.shadowRoot = { mode: "open", kids: shadowKids, querySelectorAll: (s) => el("#root", [], shadowKids).querySelectorAll(s) };
  return node;
}

function load(document) {
  const tp = { ops: {}, lib: { PageError } };
  const context = vm.createContext({ __tabpilot: tp, document, WeakRef, Element: Object, ShadowRoot: Object, Math });
  context.globalThis = context;
  vm.runInContext(readFileSync(new URL("../content/locate.js", import.meta.url), "utf8"), context);
  return tp.lib;
}

const inner = el("button", ["button", "#inside"]);
const host = el("fancy-card", ["fancy-card"], [], [inner]);
const light = el("button", ["button", "#light"]);
const doc = el("#document", [], [el("div", ["div"], [light, host])]);

test("CSS pierces open shadow roots; light matches come first", () => {
  const lib = load(doc);
  assert.deepEqual(Array.from(lib.queryAll("button")), [light, inner]);
  assert.equal(lib.first("#inside"), inner);
  assert.equal(lib.first(".nothing"), null);
});

test("a >> b finds b inside what a matches, its shadow root included", () => {
  const lib = load(doc);
  assert.deepEqual(Array.from(lib.queryAll("fancy-card >> button")), [inner]);
  assert.deepEqual(Array.from(lib.splitChain('a[title=">>"] >> b')), ['a[title=">>"]', "b"]);
  assert.deepEqual(Array.from(lib.splitChain("a:is(b >> c)")), ["a:is(b >> c)"]);
});

test("a ref holds its element; gone or unknown refs are stale_ref at once", () => {
  const lib = load(doc);
  const ref = lib.refFor(light);
  assert.equal(lib.refFor(light), ref); // the same ref each time
  assert.equal(lib.first(`@${ref}`), light);
  light.isConnected = false;
  assert.throws(() => lib.first(`@${ref}`), (err) => err.code === "stale_ref" && /no longer in the page/.test(err.message));
  light.isConnected = true;
  assert.throws(() => lib.first("@e999"), (err) => err.code === "stale_ref" && /new document/.test(err.message));
  assert.throws(() => lib.first("@f3e1"), (err) => err.code === "stale_ref");
});

test("bad selectors are invalid_params naming the parameter", () => {
  const lib = load(doc);
  assert.throws(() => lib.queryAll("a[", "scope"), (err) => err.code === "invalid_params" && err.details.param === "scope");
  assert.throws(() => lib.queryAll("  "), (err) => err.code === "invalid_params");
  assert.throws(() => lib.queryAll("a >> "), (err) => err.code === "invalid_params");
});
