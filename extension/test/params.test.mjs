import assert from "node:assert/strict";
import { test } from "node:test";

import { checkParams } from "../background/params.js";

const CLICK = {
  pageChanging: true,
  params: {
    selector: { type: ["string"], required: true },
    timeout_ms: { type: ["integer"], required: false },
    tab_id: { type: ["integer"], required: false },
  },
};
const SELECT = { pageChanging: true, params: { value: { type: ["string", "array"], required: true } } };
const NAVIGATE = {
  pageChanging: true,
  params: { wait_until: { type: ["string"], required: false, enum: ["load", "networkidle"] }, ratio: { type: ["number"], required: false } },
};

/** The invalid_params error checkParams throws, or null. */
function refusal(op, spec, params) {
  try {
    checkParams(op, spec, params);
    return null;
  } catch (err) {
    assert.equal(err.code, "invalid_params");
    return err;
  }
}

test("declared params of the right types pass, optional ones may be absent or null", () => {
  assert.equal(refusal("dom.click", CLICK, { selector: "#go", timeout_ms: 500, tab_id: 3 }), null);
  assert.equal(refusal("dom.click", CLICK, { selector: "#go" }), null);
  assert.equal(refusal("dom.click", CLICK, { selector: "#go", timeout_ms: null }), null);
});

test("a required param that is missing or null is refused", () => {
  assert.equal(refusal("dom.click", CLICK, {}).message, "dom.click: 'selector' is required.");
  const err = refusal("dom.click", CLICK, { selector: null });
  assert.equal(err.message, "dom.click: 'selector' is required.");
  assert.deepEqual(err.details, { param: "selector" });
});

test("a param the operation does not declare is refused", () => {
  const err = refusal("dom.click", CLICK, { selector: "#go", force: true });
  assert.equal(err.message, "dom.click: unknown parameter 'force' (expected: selector, timeout_ms, tab_id).");
  assert.deepEqual(err.details, { param: "force" });
  assert.match(refusal("tabs.list", { pageChanging: false, params: {} }, { tab_id: 1 }).message, /unknown parameter 'tab_id' \(expected: none\)/);
  // Inherited names are not declarations.
  assert.ok(refusal("dom.click", CLICK, { selector: "#go", toString: "x" }));
});

test("values of the wrong JSON type are refused with the type wanted", () => {
  assert.equal(refusal("dom.click", CLICK, { selector: 3 }).message, "dom.click: 'selector' must be a string.");
  assert.equal(refusal("dom.click", CLICK, { selector: "#go", timeout_ms: 1.5 }).message, "dom.click: 'timeout_ms' must be an integer.");
  assert.equal(refusal("dom.click", CLICK, { selector: "#go", timeout_ms: "500" }).message, "dom.click: 'timeout_ms' must be an integer.");
  assert.equal(refusal("dom.click", CLICK, { selector: ["#go"] }).message, "dom.click: 'selector' must be a string.");
  assert.equal(refusal("dom.click", CLICK, { selector: { css: "#go" } }).message, "dom.click: 'selector' must be a string.");
});

test("a param with two types takes either", () => {
  assert.equal(refusal("dom.select", SELECT, { value: "a" }), null);
  assert.equal(refusal("dom.select", SELECT, { value: ["a", "b"] }), null);
  assert.equal(refusal("dom.select", SELECT, { value: 1 }).message, "dom.select: 'value' must be a string or an array.");
});

test("a number takes integers too, an integer no fractions", () => {
  assert.equal(refusal("tab.navigate", NAVIGATE, { ratio: 2 }), null);
  assert.equal(refusal("tab.navigate", NAVIGATE, { ratio: 0.5 }), null);
  assert.equal(refusal("tab.navigate", NAVIGATE, { ratio: true }).message, "tab.navigate: 'ratio' must be a number.");
});

test("an enum param takes only its values", () => {
  assert.equal(refusal("tab.navigate", NAVIGATE, { wait_until: "networkidle" }), null);
  assert.equal(refusal("tab.navigate", NAVIGATE, { wait_until: "idle" }).message, "tab.navigate: 'wait_until' must be one of load, networkidle.");
});
