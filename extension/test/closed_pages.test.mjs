import assert from "node:assert/strict";
import { test } from "node:test";

import { closedKind, closedPage, emptyRead, emptySnapshot } from "../background/closed_pages.js";
import { TPError } from "../background/protocol.js";

const blank = { id: 7, url: "about:blank", title: "" };
const failed = { id: 8, url: "http://127.0.0.1:9/", title: "127.0.0.1" };
const data = { id: 9, url: "data:text/html,<p>x</p>", title: "" };

test("a refusal says which closed page it was; other errors are not refusals", () => {
  assert.equal(closedKind(blank, new Error('Cannot access contents of url "about:blank". Extension manifest must request permission to access this host.')), "blank");
  assert.equal(closedKind(failed, new Error("Frame with ID 0 is showing error page")), "error_page");
  assert.equal(closedKind(data, new Error('Cannot access contents of url "data:text/html,<p>x</p>". Extension manifest …')), "browser");
  assert.equal(closedKind(failed, new Error("No tab with id: 8.")), null);
  assert.equal(closedKind(failed, closedPage(failed, new Error("x"), "error_page")), "error_page");
  assert.equal(closedKind(failed, new TPError("timeout", "late")), null);
});

test("a whole-page read of a blank tab or an error page is the empty page, with its address", () => {
  assert.deepEqual(emptyRead(blank, "page.read", { what: "text" }, "blank"), { url: "about:blank", title: "", text: "" });
  const read = emptyRead(failed, "page.read", { what: "links" }, "error_page");
  assert.equal(read?.url, failed.url);
  assert.deepEqual([read?.links, read?.count], [[], 0]);
  assert.match(String(read?.note), /error page: http:\/\/127\.0\.0\.1:9\/ did not load/);
  assert.deepEqual(emptyRead(blank, "page.injection_scan", {}, "blank"), { url: "about:blank", title: "", segments: [] });
  assert.equal(emptySnapshot(blank, {}, "blank")?.refs, 0);
});

test("no empty answer for one element, a frame, a style read, or a page closed for other reasons", () => {
  assert.equal(emptyRead(blank, "page.read", { what: "text", selector: "main" }, "blank"), null);
  assert.equal(emptyRead(blank, "page.read", { what: "text", frame: "iframe" }, "blank"), null);
  assert.equal(emptyRead(blank, "page.read", { what: "styles", selector: "body" }, "blank"), null);
  assert.equal(emptyRead(data, "page.read", { what: "text" }, "browser"), null);
  assert.equal(emptySnapshot(blank, { scope: "main" }, "blank"), null);
});

test("the refusal's sentence says why and what to do", () => {
  for (const [tab, kind] of [[blank, "blank"], [failed, "error_page"], [data, "browser"]]) {
    const err = closedPage(tab, new Error("Cannot access contents of url"), kind);
    assert.equal(err.code, "not_supported");
    assert.match(err.message, /keeps extensions out/);
    assert.match(err.message, /Navigate/);
    assert.equal(err.details.closed, kind);
  }
});
