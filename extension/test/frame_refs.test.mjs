import assert from "node:assert/strict";
import { test } from "node:test";

import { frameRef, qualify, splitFrame, urlMatches } from "../background/frame_refs.js";

test("a selector names its frame by a frame ref; others stay in the top frame", () => {
  assert.deepEqual(splitFrame("@f12e5"), { frameId: 12, selector: "@e5" });
  assert.deepEqual(splitFrame(" @f3 >> #pay "), { frameId: 3, selector: "#pay" });
  assert.deepEqual(splitFrame("@f3 >> card >> button"), { frameId: 3, selector: "card >> button" });
  assert.deepEqual(splitFrame("@e5"), { frameId: 0, selector: "@e5" });
  assert.deepEqual(splitFrame("#f12"), { frameId: 0, selector: "#f12" });
  assert.deepEqual(splitFrame(undefined), { frameId: 0, selector: undefined });
});

test("qualify puts a selector into a frame unless it names one already", () => {
  assert.equal(qualify(12, "@e5"), "@f12e5");
  assert.equal(qualify(12, ".pay"), "@f12 >> .pay");
  assert.equal(qualify(12, "@f3e1"), "@f3e1");
  assert.equal(qualify(0, ".pay"), ".pay");
  for (const s of ["@e5", ".pay", "a >> b"]) assert.deepEqual(splitFrame(qualify(7, s)), { frameId: 7, selector: s });
});

test("a frame's own ref is its id", () => {
  assert.equal(frameRef("@f12"), 12);
  assert.equal(frameRef("@f12e3"), null);
  assert.equal(frameRef("pay"), null);
});

test("URL patterns: contained, a star for any run of characters", () => {
  assert.ok(urlMatches("https://js.stripe.com/v3/frame", "stripe.com"));
  assert.ok(urlMatches("http://localhost:8123/frame-inner.html?who=x", "localhost:*/frame-inner.html*"));
  assert.ok(!urlMatches("http://127.0.0.1:8123/frame-inner.html", "localhost:*"));
  assert.ok(urlMatches("https://a.test/x(1).html", "x(1)")); // regex characters are literal
  assert.ok(!urlMatches("https://a.test/", ""));
});

test("a frame pattern with many stars on a long URL is answered (no backtracking: issue 18)", () => {
  const pattern = "*a".repeat(18) + "*Z";
  const url = `http://127.0.0.1:8123/frame-inner.html?x=${"a".repeat(40)}`;
  assert.equal(urlMatches(url, pattern), false);
  assert.equal(urlMatches(`${url}Z`, pattern), true);
  assert.ok(urlMatches("http://h.test/a/b/c", "h.test*/*c")); // a star crosses /, as before
  assert.ok(!urlMatches("http://h.test/c/b", "*b*c"));
});
