import assert from "node:assert/strict";
import { test } from "node:test";

import { printError, printOptions } from "../background/evidence.js";

test("tab.pdf's parameters become Page.printToPDF's, with Chrome's margins where none is given", () => {
  assert.deepEqual(printOptions({ paper_width: 8.5, paper_height: 11, landscape: true, print_background: true, scale: 0.5 }), {
    landscape: true,
    printBackground: true,
    scale: 0.5,
    paperWidth: 8.5,
    paperHeight: 11,
    marginTop: 0.4,
    marginRight: 0.4,
    marginBottom: 0.4,
    marginLeft: 0.4,
    preferCSSPageSize: false,
    displayHeaderFooter: false,
  });
  const ranged = printOptions({ page_ranges: "1-3,5", margin_left: 0 });
  assert.equal(ranged.pageRanges, "1-3,5");
  assert.equal(ranged.marginLeft, 0, "a zero margin stays zero");
});

test("a template turns the header and footer on; the one not given is empty, not Chrome's date and URL", () => {
  const footer = printOptions({ footer_template: "<span class=pageNumber></span>" });
  assert.equal(footer.displayHeaderFooter, true);
  assert.equal(footer.headerTemplate, "<span></span>");
  assert.equal(footer.footerTemplate, "<span class=pageNumber></span>");
});

test("a browser that cannot print answers not_supported; a bad range invalid_params; anything else as it came", () => {
  for (const message of ["PrintToPDF is not implemented", "Printing is not available"]) {
    const err = printError(new Error(message));
    assert.equal(err.code, "not_supported");
    assert.match(err.message, /does not print pages to PDF/);
  }
  const range = printError(new Error("Page range exceeds page count"));
  assert.equal(range.code, "invalid_params");
  assert.deepEqual(range.details, { param: "page_ranges" });
  const other = new Error("Target closed");
  assert.equal(printError(other), other);
});
