import assert from "node:assert/strict";
import { test } from "node:test";

import { OPS } from "../background/commands.js";
import { OPERATIONS, PAGE_CHANGING_OPS } from "../background/operations.js";

const JSON_TYPES = ["string", "integer", "number", "boolean", "object", "array"];

test("every defined operation has a handler, and every handler a definition", () => {
  const defined = Object.keys(OPERATIONS).sort();
  const handled = Object.keys(OPS).sort();
  assert.deepEqual(
    { withoutHandler: defined.filter((op) => !handled.includes(op)), withoutDefinition: handled.filter((op) => !defined.includes(op)) },
    { withoutHandler: [], withoutDefinition: [] },
  );
});

test("PAGE_CHANGING_OPS is exactly the operations marked pageChanging", () => {
  const marked = Object.entries(OPERATIONS).filter(([, spec]) => spec.pageChanging).map(([op]) => op);
  assert.deepEqual([...PAGE_CHANGING_OPS].sort(), marked.sort());
  // The pilot's second lock must cover at least what acts on the page.
  for (const op of ["tab.navigate", "js.execute", "dom.click", "dom.fill", "dom.type", "dom.press", "dom.select"]) {
    assert.ok(PAGE_CHANGING_OPS.has(op), op);
  }
});

test("every param definition names JSON types and says whether it is required", () => {
  for (const [op, spec] of Object.entries(OPERATIONS)) {
    for (const [name, param] of Object.entries(spec.params)) {
      assert.ok(Array.isArray(param.type) && param.type.length > 0, `${op}.${name}`);
      for (const type of param.type) assert.ok(JSON_TYPES.includes(type), `${op}.${name}: ${type}`);
      assert.equal(typeof param.required, "boolean", `${op}.${name}`);
    }
  }
});
