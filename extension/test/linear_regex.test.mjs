// content/linear_regex.js: agent-supplied regular expressions matched without backtracking.
// A pattern here that backtracks (RegExp) would run for hours on these texts: each test finishing at
// all, with the right answer, is the proof that it does not.
import assert from "node:assert/strict";
import { test } from "node:test";

import "../content/linear_regex.js";

const { compileRegex, RegexRefused } = globalThis.__tabpilotRegex;

test("answers as RegExp.test does, over the grammar it takes", () => {
  const cases = [
    ["abc", "xabcx"], ["^abc$", "abc"], ["^abc$", "abcd"], ["a|b", "zzb"], ["^(a|b)+$", "abba"], ["^(a|b)+$", "abca"],
    ["a{2,3}", "aa"], ["^a{2,3}$", "aaaa"], ["^a{2,}$", "aaaa"], ["\\d+\\.\\d*", "v1.2"], ["[^a-c]", "abc"], ["[^a-c]", "abcd"],
    ["\\bfoo\\b", "a foo b"], ["\\bfoo\\b", "afoob"], ["\\Bfoo", "afoo"], ["^$", ""], ["x*", ""], ["(?:ab)+c", "ababc"],
    ["(?<n>ab)c", "abc"], ["[\\d-x]", "-"], ["[\\d-x]", "5"], ["[\\w]+@", "me@x"], ["\\u0041", "A"], ["\\x41", "A"],
    ["a.c", "a\nc"], ["a.c", "abc"], ["^b", "a\nb"], ["a$", "a\nb"], ["\\s", "\u00a0"], ["[\\b]", "\b"], ["{", "a{"],
    ["a{,2}", "a{,2}"], ["]", "]"], ["\\/", "/"], ["(a*)*b", "aaab"], ["(a*)*b", "aaa"], ["(|a)+$", "aa"], ["ÄB", "äb"],
    ["[a-z]+", "ABC"], ["\\cJ", "\n"], ["\\0", "\0"], ["^\\u{1F600}$", "😀"], ["^.$", "😀"], ["Total: \\$\\d+", "Total: $42"],
  ];
  for (const [source, text] of cases) {
    for (const flags of ["", "i", "m", "s", "u", "im"]) {
      let want;
      try {
        want = new RegExp(source, flags).test(text);
      } catch {
        continue; // not valid with these flags
      }
      assert.equal(compileRegex(source, flags).test(text), want, `/${source}/${flags} on ${JSON.stringify(text)}`);
    }
  }
});

test("catastrophic patterns finish, with the right answer", () => {
  const text = "e".repeat(30) + "a".repeat(5000) + "!";
  assert.equal(compileRegex("^([\\s\\S]*e){14}QQQ$").test(text), false); // issue 18's assert pattern
  assert.equal(compileRegex("^([\\s\\S]*e){14}").test(text), true);
  assert.equal(compileRegex("(a+)+$").test("a".repeat(5000) + "!"), false);
  assert.equal(compileRegex("^(a|a)*$").test("a".repeat(5000) + "b"), false);
  assert.equal(compileRegex("\\s*\\s*\\s*\\s*\\s*\\s*x").test(" ".repeat(20000)), false);
  const star = ".*a".repeat(18) + ".*Z"; // issue 18's frame pattern, as the old code made it
  assert.equal(compileRegex(star).test("http://h.test/" + "a".repeat(40)), false);
  assert.equal(compileRegex(star).test("http://h.test/" + "a".repeat(40) + "Z"), true);
});

test("what cannot be matched in linear time is refused with a sentence; bad syntax is a SyntaxError", () => {
  for (const [source, flags, words] of [
    ["(a)\\1", "", /backreference/],
    ["(?<x>a)\\k<x>", "", /backreference/],
    ["(?=a)b", "", /lookahead or lookbehind/],
    ["(?<!a)b", "", /lookahead or lookbehind/],
    ["\\p{L}", "u", /Unicode property/],
    ["a", "v", /'v' flag/],
    ["x{4000}y{4000}", "", /too large/],
    ["((a{100}){100}){100}", "", /too large/],
    ["a".repeat(3000), "", /3000 characters/],
    ["(".repeat(500) + "a" + ")".repeat(500), "", /more than 100 deep/],
  ]) {
    assert.throws(() => compileRegex(source, flags), (err) => err instanceof RegexRefused && words.test(err.message), source);
  }
  assert.throws(() => compileRegex("(", ""), SyntaxError);
});

test("a text too long for the pattern's work budget is refused, not run for seconds", () => {
  const re = compileRegex("(abc|abd){1,400}x");
  assert.throws(() => re.test("ab".repeat(5_000_000)), RegexRefused);
  assert.equal(compileRegex("needle").test("hay ".repeat(100_000) + "needle"), true);
});

test("a character class costs what its test costs: a class of 1,000 \\s is refused on a long text, not run for minutes", () => {
  const wide = compileRegex(`[${"\\s".repeat(1000)}]`);
  assert.throws(() => wide.test("x".repeat(1_000_000)), RegexRefused);
  assert.equal(wide.test("xx yy"), true); // on a short text it still runs
  const folded = compileRegex(`[${"a-c".repeat(500)}]`, "i");
  assert.throws(() => folded.test("x".repeat(1_000_000)), RegexRefused);
});
