import assert from "node:assert/strict";
import { test } from "node:test";
import { fetchPattern, fetchPatterns, globSource, isRegexLiteral, matcher } from "../background/route_match.js";
import { HIT_TTL_MS, RouteHits } from "../background/route_hits.js";

const matches = (pattern, url) => matcher(pattern)(url);

test("globs mean what Playwright's mean: * stops at /, ** does not, the whole URL must match", () => {
  assert.equal(matches("**/api/items*", "http://127.0.0.1:8000/api/items?from=app"), true);
  assert.equal(matches("**/api/items*", "http://127.0.0.1:8000/api/items/7"), false); // * stops at /
  assert.equal(matches("**/api/items**", "http://127.0.0.1:8000/api/items/7"), true);
  assert.equal(matches("**/api/items", "http://x.test/api/items?page=2"), false); // the query is part of the URL
  assert.equal(matches("https://x.test/*.js", "https://x.test/app.js"), true);
  assert.equal(matches("https://x.test/*.js", "https://x.test/lib/app.js"), false);
  assert.equal(matches("**/*.{png,jpg}", "https://cdn.test/a/b.jpg"), true);
  assert.equal(matches("**/*.{png,jpg}", "https://cdn.test/a/b.gif"), false);
  assert.equal(matches("**/search?q=a", "https://x.test/search?q=a"), true); // ? is itself
  assert.equal(matches("**/search?q=a", "https://x.test/searchXq=a"), false);
  assert.equal(matches("**/a.b", "https://x.test/aXb"), false); // . is itself
  assert.equal(matches("**/\\*star", "https://x.test/*star"), true);
});

test("a glob starting with one / is a path on any site", () => {
  assert.equal(matches("/api/items*", "http://127.0.0.1:8000/api/items?from=app"), true);
  assert.equal(matches("/api/items*", "https://other.test/api/items"), true);
  assert.equal(matches("/api/items*", "https://other.test/v2/api/items"), false);
  assert.equal(matches("/api/items*", "http://127.0.0.1:8000/x?next=/api/items"), false);
  assert.equal(matches("/api/items*", "https://other.test/api/other"), false);
});

test("/source/flags is a regular expression matching anywhere in the URL", () => {
  assert.equal(isRegexLiteral("/items\\?from=app$/"), true);
  assert.equal(isRegexLiteral("/api/items*"), false);
  assert.equal(matches("/items\\?from=app$/", "http://h.test/api/items?from=app"), true);
  assert.equal(matches("/ITEMS/i", "http://h.test/api/items"), true);
  assert.equal(matches("/ITEMS/", "http://h.test/api/items"), false);
  const sticky = matcher("/items/g"); // `g` would make test() remember where it stopped
  assert.equal(sticky("http://h.test/items"), true);
  assert.equal(sticky("http://h.test/items"), true);
});

test("a hostile route glob or /regex/ is answered on a long URL, not backtracked (issue 18)", () => {
  const url = `http://h.test/${"a".repeat(60)}`;
  assert.equal(matches("**" + "*a".repeat(25) + "*Z", url), false);
  assert.equal(matches("**/" + "{a,aa}".repeat(20) + "*Z", url), false);
  assert.equal(matches("/^(a|aa)+Z$/", "a".repeat(60)), false);
  assert.throws(() => matcher("/(?=a)/"), /lookahead/);
  assert.equal(matches("/x/", "data:text/plain," + "ab".repeat(5_000_000)), false); // over the work budget: no match
});

test("an invalid glob or regex throws a readable error", () => {
  assert.throws(() => matcher("/items[/"), SyntaxError);
  assert.throws(() => matcher("**/{a,{b}}"), /nested '\{'/);
  assert.throws(() => matcher("**/a}"), /unmatched '\}'/);
  assert.throws(() => globSource("**/{a"), /unmatched '\{'/);
});

test("the Fetch pattern lets through every URL the route matches, and little else", () => {
  assert.equal(fetchPattern("**/api/items*"), "*/api/items*");
  assert.equal(fetchPattern("/api/items*"), "*://*/api/items*");
  assert.equal(fetchPattern("**/*.{png,jpg}"), "*/*.*");
  assert.equal(fetchPattern("**/search?q=a"), "*/search\\?q=a");
  assert.equal(fetchPattern("/items$/"), "*");
  assert.deepEqual(fetchPatterns(["**/a*", "**/a*", "**/b"]), [
    { urlPattern: "*/a*", requestStage: "Request" },
    { urlPattern: "*/b", requestStage: "Request" },
  ]);
  assert.deepEqual(fetchPatterns(["**/a*", "/x/i"]), [{ urlPattern: "*", requestStage: "Request" }]);
});

test("a route's hit marks one network item and one body item, the oldest first, for a minute", () => {
  let now = 1000;
  const hits = new RouteHits(() => now);
  hits.remember(5, "http://h.test/api/items?x=1", "mock", "**/api/items*");
  hits.remember(5, "http://h.test/ad.js", "block", "**/ad.js");
  const items = [
    { kind: "network", url: "http://h.test/api/items?x=1", status: 200 },
    { kind: "body", url: "http://h.test/api/items?x=1" },
    { kind: "network", url: "http://h.test/api/items?x=1", status: 200 }, // a second, real request
    { kind: "network", url: "http://h.test/ad.js#frag", status: 0 },
    { kind: "log", url: "http://h.test/api/items?x=1" },
  ];
  hits.mark(5, items);
  assert.equal(items[0].mocked, true);
  assert.equal(items[0].route, "**/api/items*");
  assert.equal(items[1].mocked, true);
  assert.equal(items[2].mocked, undefined);
  assert.equal(items[3].blocked, true);
  assert.equal(items[4].mocked, undefined);

  hits.remember(5, "http://h.test/late", "mock", "**/late");
  now += HIT_TTL_MS + 1;
  const late = [{ kind: "network", url: "http://h.test/late" }];
  hits.mark(5, late);
  assert.equal(late[0].mocked, undefined);
  hits.mark(6, late); // another tab: nothing of its own
  hits.forget(5);
  assert.equal(hits.tabs.size, 0);
});
