// The content scripts' op registry against what the service worker asks of them: every op in
// background/page_ops.js (the one list askPage takes, checked by tsc at each call site) is registered by
// content/*.js loaded as Chrome loads them (the manifest's order, one isolated world), no registered op
// is missing from it, and each listed op is asked for somewhere in the background.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

import { PAGE_OPS } from "../background/page_ops.js";

const root = new URL("..", import.meta.url);
const read = (path) => readFileSync(new URL(path, root), "utf8");

/**
 * A stand-in for any browser object: every property is another, calling or constructing one gives
 * another. Loading the content scripts only defines their functions; the few top-level calls they make
 * (document listeners, a MessageChannel, ...) need something there, not a real DOM.
 */
function anything() {
  return new Proxy(function stub() {}, {
    get(_target, key) {
      if (key === Symbol.toPrimitive) return () => "";
      if (key === "prototype") return Object.prototype;
      if (key === "then") return undefined; // not a thenable
      return typeof key === "symbol" ? undefined : anything();
    },
    apply: () => anything(),
    construct: () => anything(),
  });
}

/** `globalThis.__tabpilot` after loading the manifest's content scripts into a fresh isolated world. */
function loadContentScripts() {
  const builtins = new Set(Object.getOwnPropertyNames(vm.runInNewContext("globalThis")));
  const noTimer = () => 0; // nothing runs after loading: no timer may keep node's test process alive
  /** @type {Record<string, unknown>} */
  const own = { setTimeout: noTimer, clearTimeout: noTimer, setInterval: noTimer, clearInterval: noTimer, requestAnimationFrame: noTimer };
  // A browser's global names the scripts mention are stand-ins; the JavaScript builtins are node's
  // (a proxied global answers every name itself), and the scripts' own globals (`__tabpilot`) are unset
  // until they set them.
  const standsIn = (key) => typeof key === "string" && !builtins.has(key) && !key.startsWith("__");
  const sandbox = new Proxy(own, {
    has: (target, key) => key in target || standsIn(key),
    get: (target, key) => {
      if (key in target) return target[key];
      if (typeof key === "string" && builtins.has(key)) return /** @type {any} */ (globalThis)[key];
      return standsIn(key) ? anything() : undefined;
    },
  });
  own.globalThis = sandbox;
  const world = vm.createContext(sandbox);
  const manifest = JSON.parse(read("manifest.json"));
  const files = manifest.content_scripts.find((entry) => entry.js.includes("content/agent.js")).js;
  for (const file of files) vm.runInContext(read(file), world, { filename: file });
  return vm.runInContext("globalThis.__tabpilot", world);
}

test("the content scripts register exactly the ops the service worker asks of them", () => {
  const registered = Object.keys(loadContentScripts().ops);
  const asked = [...PAGE_OPS];
  assert.deepEqual(
    {
      askedButNotRegistered: asked.filter((op) => !registered.includes(op)),
      registeredButNeverAsked: registered.filter((op) => !asked.includes(op)),
    },
    { askedButNotRegistered: [], registeredButNeverAsked: [] },
  );
  assert.equal(new Set(asked).size, asked.length, "PAGE_OPS names an op twice");
});

test("every content script is in the manifest, so the registry above is the whole of it", () => {
  const manifest = JSON.parse(read("manifest.json"));
  const loaded = manifest.content_scripts.flatMap((entry) => entry.js).filter((file) => file.startsWith("content/"));
  const present = readdirSync(new URL("content/", root)).filter((name) => name.endsWith(".js")).map((name) => `content/${name}`);
  assert.deepEqual([...present].sort(), [...loaded].sort());
});

test("every op of PAGE_OPS is asked for somewhere in the background", () => {
  const sources = readdirSync(new URL("background/", root))
    .filter((name) => name.endsWith(".js") && name !== "page_ops.js")
    .map((name) => read(`background/${name}`))
    .join("\n");
  const unasked = PAGE_OPS.filter((op) => !sources.includes(`"${op}"`));
  assert.deepEqual(unasked, []);
});
