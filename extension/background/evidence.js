// @ts-check
// Print and evidence: the page as a PDF (tab.pdf) and as one MHTML file (tab.archive) through CDP, and
// the page's own timings (page.performance) read in its isolated world. The app turns paper sizes and
// margins into inches and writes the files; nothing here touches the disk.
/* global document -- measure() runs in the page (executeScript) */
import * as cdp from "./cdp.js";
import * as ext from "./ext.js";
import { Codes, TPError } from "./protocol.js";
import { assertReadable, getTab } from "./tabs.js";
import { tabLoaded } from "./waiting.js";

const LOAD_WAIT_MS = 10_000;

/** Chrome's words when its DevTools printing is off: older headful builds, or a policy that disables printing. */
const CANNOT_PRINT = /not implemented|printing is not available|printing is disabled/i;
const BAD_RANGE = /page range/i;

/** The `tab.pdf` operation's parameters as Page.printToPDF's. */
export function printOptions(p) {
  const options = {
    landscape: !!p.landscape,
    printBackground: !!p.print_background,
    scale: p.scale ?? 1,
    paperWidth: p.paper_width ?? 8.27,
    paperHeight: p.paper_height ?? 11.7,
    marginTop: p.margin_top ?? 0.4,
    marginRight: p.margin_right ?? 0.4,
    marginBottom: p.margin_bottom ?? 0.4,
    marginLeft: p.margin_left ?? 0.4,
    preferCSSPageSize: !!p.prefer_css_page_size,
    displayHeaderFooter: p.header_template !== undefined || p.footer_template !== undefined,
  };
  if (p.page_ranges) options.pageRanges = p.page_ranges;
  if (options.displayHeaderFooter) {
    options.headerTemplate = p.header_template ?? "<span></span>";
    options.footerTemplate = p.footer_template ?? "<span></span>";
  }
  return options;
}

/** Page.printToPDF's failure as the contract's error. */
export function printError(err) {
  const message = String(err?.message ?? err);
  if (CANNOT_PRINT.test(message)) {
    return new TPError(
      Codes.NOT_SUPPORTED,
      `This browser does not print pages to PDF through its debugger (${message}). Headless Chromium and recent Chrome do; ` +
        "the person can also print the page with Ctrl+P → Save as PDF.",
    );
  }
  if (BAD_RANGE.test(message)) return new TPError(Codes.INVALID_PARAMS, `page_ranges: ${message}`, { param: "page_ranges" });
  return err;
}

/**
 * The tab once its page has loaded (a page still loading prints as a blank sheet and saves half); a page
 * that never finishes loading (a stream, a hanging image) is taken as it is after LOAD_WAIT_MS.
 */
async function loaded(tab) {
  assertReadable(tab);
  if (tab.status === "complete") return tab;
  await tabLoaded(tab.id, LOAD_WAIT_MS);
  const now = await getTab(tab.id);
  assertReadable(now);
  return now;
}

/** @param {import("./operations.js").TabPdfParams} p */
export async function printPdf(target, p) {
  const tab = await loaded(target);
  try {
    const { data } = await cdp.send(tab.id, "Page.printToPDF", printOptions(p));
    return { data };
  } catch (err) {
    throw printError(err);
  }
}

export async function archive(target) {
  const tab = await loaded(target);
  const { data } = await cdp.send(tab.id, "Page.captureSnapshot", { format: "mhtml" });
  return { data, url: tab.url ?? "", title: tab.title ?? "" };
}

/**
 * Runs in the page's isolated world (same timeline, untouched by the page's own scripts): navigation and
 * paint timings, Web Vitals from the buffered entries, resource counts. Milliseconds from the start of the
 * navigation, one decimal; null for what the page cannot tell (yet).
 */
function measure() {
  const ms = (v) => (typeof v === "number" && v > 0 ? Math.round(v * 10) / 10 : null);
  // A buffered observer holds the entries the page already had as soon as it observes (the spec's
  // "buffered" flag fills its buffer at once): takeRecords() hands them over without waiting a task.
  const buffered = (type) => {
    try {
      const observer = new PerformanceObserver(() => {});
      observer.observe({ type, buffered: true });
      const seen = observer.takeRecords();
      observer.disconnect();
      return seen;
    } catch {
      return []; // this browser does not know the entry type
    }
  };
  const describe = (el) => {
    if (!el || !el.tagName) return null;
    const id = el.id ? `#${el.id}` : "";
    const classes = typeof el.className === "string" && el.className.trim() ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
    return `${el.tagName.toLowerCase()}${id}${classes}`.slice(0, 200);
  };

  const [nav] = /** @type {PerformanceNavigationTiming[]} */ (performance.getEntriesByType("navigation"));
  const paints = Object.fromEntries(performance.getEntriesByType("paint").map((e) => [e.name, e.startTime]));
  const [lcps, shifts, events, firstInputs] = ["largest-contentful-paint", "layout-shift", "event", "first-input"].map(buffered);

  // CLS: the largest burst of unexpected shifts (gaps under 1 s, a burst at most 5 s), as web-vitals counts it.
  let cls = 0;
  let burst = 0;
  let first = 0;
  let last = 0;
  for (const s of /** @type {any[]} */ (shifts)) {
    if (s.hadRecentInput) continue;
    if (burst && s.startTime - last < 1000 && s.startTime - first < 5000) burst += s.value;
    else {
      burst = s.value;
      first = s.startTime;
    }
    last = s.startTime;
    cls = Math.max(cls, burst);
  }
  const lcp = /** @type {any} */ (lcps.at(-1));
  // INP: the slowest interaction (each interaction's longest event); the buffer keeps events of 104 ms or more.
  const slowest = new Map();
  for (const e of /** @type {any[]} */ (events)) {
    if (e.interactionId) slowest.set(e.interactionId, Math.max(slowest.get(e.interactionId) ?? 0, e.duration));
  }
  const fid = /** @type {any} */ (firstInputs[0]);

  const resources = /** @type {PerformanceResourceTiming[]} */ (performance.getEntriesByType("resource"));
  const byType = {};
  let transfer = 0;
  let decoded = 0;
  for (const r of resources) {
    const kind = (byType[r.initiatorType] ??= { count: 0, transfer_bytes: 0 });
    kind.count += 1;
    kind.transfer_bytes += r.transferSize || 0;
    transfer += r.transferSize || 0;
    decoded += r.decodedBodySize || 0;
  }

  return {
    url: location.href,
    title: document.title,
    time_origin: Math.round(performance.timeOrigin),
    navigation: nav
      ? {
          type: nav.type,
          ttfb_ms: ms(nav.responseStart),
          response_end_ms: ms(nav.responseEnd),
          dom_interactive_ms: ms(nav.domInteractive),
          dom_content_loaded_ms: ms(nav.domContentLoadedEventEnd),
          load_ms: ms(nav.loadEventEnd),
          transfer_size: nav.transferSize ?? null,
          decoded_body_size: nav.decodedBodySize ?? null,
          status: /** @type {any} */ (nav).responseStatus || null,
        }
      : null,
    paint: { first_paint_ms: ms(paints["first-paint"]), first_contentful_paint_ms: ms(paints["first-contentful-paint"]) },
    web_vitals: {
      lcp_ms: lcp ? ms(lcp.renderTime || lcp.loadTime || lcp.startTime) : null,
      lcp_element: lcp ? describe(lcp.element) : null,
      cls: Math.round(cls * 10000) / 10000,
      inp_ms: slowest.size ? ms(Math.max(...slowest.values())) : null,
      fid_ms: fid ? ms(fid.processingStart - fid.startTime) ?? 0 : null,
    },
    resources: { count: resources.length, transfer_bytes: transfer, decoded_bytes: decoded, by_type: byType },
  };
}

export async function performanceOf(tab) {
  assertReadable(tab);
  const [frame] = await ext.scripting.executeScript({ target: { tabId: tab.id, frameIds: [0] }, func: measure });
  if (!frame?.result) throw new TPError(Codes.INTERNAL, "The page did not answer its timings.");
  return frame.result;
}
