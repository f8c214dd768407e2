import assert from "node:assert/strict";
import { test } from "node:test";

import { globToRegExp, urlMatcher } from "../background/acting.js";
import { modifierMask } from "../background/actions.js";

test("a URL glob: * stays within a path segment, ** crosses them, the whole URL must match", () => {
  assert.ok(globToRegExp("https://example.com/*").test("https://example.com/a"));
  assert.ok(!globToRegExp("https://example.com/*").test("https://example.com/a/b"));
  assert.ok(globToRegExp("**/done.html").test("http://127.0.0.1:8000/x/done.html"));
  assert.ok(!globToRegExp("**/done.html").test("http://127.0.0.1:8000/x/done.html?again"));
  assert.ok(globToRegExp("**/item?.html").test("http://h/item7.html"));
  assert.ok(!globToRegExp("http://h/a.b").test("http://h/aXb"), "dots are literal");
});

test("a URL pattern is a /regex/, a glob, or a substring", () => {
  assert.ok(urlMatcher("/second\\.html$/")("http://h/second.html"));
  assert.ok(!urlMatcher("/second\\.html$/")("http://h/second.html?x"));
  assert.ok(urlMatcher("/SECOND/i")("http://h/second.html"));
  assert.ok(urlMatcher("**/second.html")("http://h/second.html"));
  assert.ok(urlMatcher("second.html")("http://h/second.html?x=1"));
  assert.throws(() => urlMatcher("/(/"), { code: "invalid_params" });
});

test("hostile URL globs and /regex/ on a long URL are answered, not backtracked (issue 18)", () => {
  const url = `http://h.test/${"a".repeat(60)}`;
  assert.equal(urlMatcher("**" + "*a".repeat(25) + "*Z")(url), false);
  assert.equal(urlMatcher("**" + "*a".repeat(25) + "**")(url), true);
  assert.equal(urlMatcher("/^(a+)+Z$/")("a".repeat(60)), false);
  assert.equal(urlMatcher("/(.*a){25}Z/")(url), false);
  assert.throws(() => urlMatcher("/(a)\\1/"), { code: "invalid_params", message: /backreference/ });
});

test("click modifiers become CDP's bit mask; an unknown name is invalid_params", () => {
  assert.equal(modifierMask(undefined), 0);
  assert.equal(modifierMask(["Alt"]), 1);
  assert.equal(modifierMask(["Shift", "Control"]), 10);
  assert.equal(modifierMask(["Alt", "Control", "Meta", "Shift"]), 15);
  assert.throws(() => modifierMask(["Ctrl"]), { code: "invalid_params", message: /Ctrl/ });
});
