// @ts-check
// The ops the service worker asks of the content scripts (content/*.js register each in
// `globalThis.__tabpilot.ops`; content.js askPage calls them). askPage and the helpers above it take
// only these names, so tsc checks every call site; test/page_ops.test.mjs loads the content scripts and
// checks that they register exactly these, and that each is asked for somewhere.
export const PAGE_OPS = /** @type {const} */ ([
  // content/agent.js
  "page.info",
  "page.brief",
  "dom.query",
  "dom.count",
  // content/locate.js
  "frame.locate",
  "frame.offset",
  // content/elements.js
  "dom.box",
  "dom.wait",
  "dom.actionable",
  "dom.hit",
  "dom.fill",
  "dom.select",
  "dom.scroll",
  // content/acts.js
  "page.watch",
  "page.settle",
  "dom.check_state",
  "dom.check_wait",
  "dom.upload",
  "dom.wait_text",
  "dom.media_src",
  "dom.overlays",
  "dom.overlays_close",
  // content/extract.js
  "scrape.extract",
  "scrape.probe",
  "scrape.changed",
  // content/snapshot.js
  "dom.snapshot",
  "dom.describe",
  "dom.highlight",
  // content/read.js
  "page.read",
  // content/checks.js
  "page.assert",
  "page.injection_scan",
]);

/** @typedef {typeof PAGE_OPS[number]} PageOp */
