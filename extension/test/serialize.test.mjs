import assert from "node:assert/strict";
import { test } from "node:test";

import { toJsonSafe } from "../background/serialize.js";

test("JSON values come back as they are", () => {
  const value = { a: 1, b: "x", c: [true, null, { d: 2.5 }] };
  assert.deepEqual(toJsonSafe(value), value);
});

test("what JSON cannot say becomes a readable string or null", () => {
  assert.equal(toJsonSafe(undefined), null);
  assert.equal(toJsonSafe(NaN), "NaN");
  assert.equal(toJsonSafe(Infinity), "Infinity");
  assert.equal(toJsonSafe(10n), "10n");
  assert.equal(toJsonSafe(Symbol("s")), "Symbol(s)");
  assert.equal(toJsonSafe(function named() {}), "[Function: named]");
  assert.equal(toJsonSafe(() => {}), "[Function: anonymous]");
  assert.equal(toJsonSafe(new TypeError("bad")), "TypeError: bad");
  assert.equal(toJsonSafe(new Date(Date.UTC(2024, 0, 2))), "2024-01-02T00:00:00.000Z");
  assert.equal(toJsonSafe(new Date(NaN)), "Invalid Date");
  assert.equal(toJsonSafe(/a+/g), "/a+/g");
  assert.equal(toJsonSafe(Promise.resolve(1)), "[Promise]");
  assert.equal(toJsonSafe(new Uint8Array(3)), "[Uint8Array(3)]");
  assert.equal(toJsonSafe(new DataView(new ArrayBuffer(4))), "[DataView(4)]");
  assert.equal(toJsonSafe(new ArrayBuffer(8)), "[ArrayBuffer(8)]");
});

test("undefined members are dropped, Maps become pairs and Sets lists", () => {
  assert.deepEqual(toJsonSafe({ a: undefined, b: 1 }), { b: 1 });
  assert.deepEqual(toJsonSafe(new Map([["k", 1]])), [["k", 1]]);
  assert.deepEqual(toJsonSafe(new Set([1, 2])), [1, 2]);
  assert.deepEqual(toJsonSafe({ toJSON: () => ({ via: "toJSON" }) }), { via: "toJSON" });
});

test("a cycle is cut, but the same object twice is not a cycle", () => {
  const loop = { name: "loop" };
  loop.self = loop;
  assert.deepEqual(toJsonSafe(loop), { name: "loop", self: "[Circular]" });
  const shared = { n: 1 };
  assert.deepEqual(toJsonSafe([shared, shared]), [{ n: 1 }, { n: 1 }]);
});

test("depth and size are bounded", () => {
  let deep = {};
  const root = deep;
  for (let i = 0; i < 30; i++) deep = deep.next = {};
  let node = toJsonSafe(root);
  let depth = 0;
  while (typeof node === "object") {
    node = node.next;
    depth += 1;
  }
  assert.equal(node, "[Object]");
  assert.equal(depth, 20);
  assert.equal(toJsonSafe(Array.from({ length: 1500 }, (_, i) => i)).length, 1000);
  assert.equal(Object.keys(toJsonSafe(Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`k${i}`, i])))).length, 1000);
});

test("a getter that throws is reported, not thrown", () => {
  const value = {
    get boom() {
      throw new Error("no");
    },
  };
  assert.deepEqual(toJsonSafe(value), { boom: "[Unreadable: no]" });
});

test("it survives being inlined as source, as execute.js does", () => {
  const inlined = new Function(`return (${toJsonSafe.toString()})`)();
  assert.deepEqual(inlined({ a: [1, undefined], b: NaN }), { a: [1, null], b: "NaN" });
});
