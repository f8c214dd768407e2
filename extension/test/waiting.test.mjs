import assert from "node:assert/strict";
import { test } from "node:test";

import { isRestricted } from "../background/tabs.js";
import { budget, requireString } from "../background/waiting.js";

test("an op waits all of the frame's time but the margin: min(250 ms, 10 %)", () => {
  assert.equal(budget({}, 10_000).ms, 9_750);
  assert.equal(budget({}, 1_000).ms, 900);
  assert.equal(budget({}, undefined).ms, 9_750, "no frame timeout: 10 s");
  assert.equal(budget({ timeout_ms: null }, 5_000).ms, 4_750);
});

test("its own timeout_ms counts when it is shorter than the frame's", () => {
  assert.equal(budget({ timeout_ms: 2_000 }, 10_000).ms, 2_000);
  assert.equal(budget({ timeout_ms: 60_000 }, 10_000).ms, 9_750);
  assert.equal(budget({ timeout_ms: 0 }, 10_000).ms, 0);
});

test("a timeout_ms that is not milliseconds is invalid_params", () => {
  for (const timeout_ms of [-1, "500", NaN, Infinity]) {
    assert.throws(() => budget({ timeout_ms }, 10_000), { code: "invalid_params", details: { param: "timeout_ms" } }, String(timeout_ms));
  }
});

test("a deadline counts down from its start", () => {
  const deadline = budget({ timeout_ms: 5_000 }, 10_000);
  assert.ok(deadline.left() <= 5_000 && deadline.left() > 4_000);
  assert.ok(deadline.elapsed() >= 0 && deadline.elapsed() < 1_000);
});

test("requireString wants a non-blank string", () => {
  assert.equal(requireString({ selector: "#a" }, "selector"), "#a");
  for (const selector of ["", "  ", undefined, 3]) {
    assert.throws(() => requireString({ selector }, "selector"), { code: "invalid_params", message: "'selector' must be a non-empty string." });
  }
});

test("browser and store pages are closed to the extension; about:blank and the web are not", () => {
  for (const url of ["chrome://settings", "chrome-extension://abc/popup.html", "devtools://x", "view-source:https://a.b/", "about:version", "", undefined, "https://chrome.google.com/webstore/detail/x"]) {
    assert.equal(isRestricted(url), true, String(url));
  }
  for (const url of ["about:blank", "https://example.com/", "http://127.0.0.1:8000/x", "file:///tmp/a.html"]) {
    assert.equal(isRestricted(url), false, url);
  }
});
