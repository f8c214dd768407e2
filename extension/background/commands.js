// @ts-check
// The operations the app may ask for: those operations.js defines (generated from the app's own
// definitions), each with its handler here. Anything else is refused, and so are params it does not declare.
import { audit } from "./a11y.js";
import { check, dismissOverlays, download, drag, fill, focus, history, hover, select, upload, waitFor } from "./acting.js";
import { click, press, type } from "./actions.js";
import { flushCapture } from "./capture.js";
import { closedKind, closedPage, emptySnapshot } from "./closed_pages.js";
import { crop } from "./crop.js";
import { toContent } from "./content.js";
import { guarded, handleDialog, listDialogs } from "./dialogs.js";
import { emulate, setHeaders, setUserAgent } from "./emulation.js";
import { archive, performanceOf, printPdf } from "./evidence.js";
import { executeJs } from "./execute.js";
import { downloadInFrame, waitForInFrame } from "./framed_ops.js";
import { locateFrame, readInFrame, withFrame } from "./frames.js";
import { navigate } from "./navigate.js";
import { OPERATIONS } from "./operations.js";
import { checkParams } from "./params.js";
import { Codes, TPError } from "./protocol.js";
import { endHandoff, startHandoff } from "./handoff.js";
import { addRoutes, clearRoutes, listRoutes } from "./routes.js";
import { extract, nextPage } from "./scrape.js";
import { screenshot } from "./screenshot.js";
import { highlight, snapshot } from "./snapshot.js";
import { loadState, saveState } from "./state.js";
import { activateTab, assertReadable, closeTab, getTab, listTabs, openTab, setTracked, targetTab } from "./tabs.js";
import { budget, inPage, inPageAt, requireString, waitForState } from "./waiting.js";

/** @param {import("./operations.js").TabsTrackParams} params */
async function track(params) {
  if (params.clear) {
    await setTracked(null);
    return { tracked: null };
  }
  const tab = Number.isInteger(params.tab_id) ? await getTab(params.tab_id) : await targetTab({}, { fresh: true });
  await setTracked(tab.id);
  return { tracked: shown(tab) };
}

// A new tab's about:blank is closed to extensions, but there is nothing in it to read: its answer is
// known (a fresh managed browser starts there, and an agent's first look should not fail). The
// browser's error page after a failed load is closed too; what is known of it is its address and title.
const isBlank = (tab) => tab.url === "about:blank" && tab.status !== "loading";

function blankPage(tab) {
  return {
    url: tab.url ?? "about:blank",
    title: tab.title ?? "",
    viewport: { width: tab.width ?? 0, height: tab.height ?? 0 },
    scroll: { x: 0, y: 0 },
    documentHeight: 0,
    forms: [],
    headings: [],
    links: 0,
    images: 0,
    interactiveElements: 0,
  };
}

const noMatches = (tab) => ({ url: tab.url ?? "", title: tab.title ?? "", matches: [], matchCount: 0, returnedCount: 0 });

/**
 * A page.info or dom.query: on a blank tab or an error page (closed_pages.js), the empty answer `empty`
 * gives; elsewhere the content op.
 * @param {"page.info" | "dom.query"} op @param {(tab: chrome.tabs.Tab) => object} empty
 */
function briefOr(op, empty) {
  return async (/** @type {Record<string, any>} */ p) => {
    const tab = await targetTab(p);
    if (isBlank(tab)) return empty(tab);
    try {
      return await toContent(tab, op, p);
    } catch (err) {
      const kind = closedKind(tab, err);
      if (kind === "blank" || kind === "error_page") return empty(tab);
      throw err;
    }
  };
}

/**
 * @template P
 * @param {(tab: chrome.tabs.Tab, params: P, frameMs: number) => Promise<unknown>} run
 * @returns {(params: P, frameMs: number) => Promise<unknown>}
 */
function onPage(run) {
  return async (params, frameMs) => {
    const tab = await targetTab(params);
    assertReadable(tab);
    return run(tab, params, frameMs);
  };
}

/**
 * A content op that waits for its element, across navigations (content/elements.js).
 * @template P
 * @param {import("./page_ops.js").PageOp} op @param {(params: P) => object} pick
 * @returns {(params: P, frameMs: number) => Promise<unknown>}
 */
function elementOp(op, pick) {
  return onPage((tab, params, frameMs) => {
    const deadline = budget(params, frameMs);
    return inPage(tab.id, op, pick(params), deadline);
  });
}

/**
 * page.assert: the checks in the frame `frame` names (the top by default). The op's time is the whole
 * command's (the page must answer even a look-once call); `timeout_ms` is how long the checks may wait
 * for each other to pass, and goes to the page as `wait_ms`.
 */
/** @param {chrome.tabs.Tab} tab @param {import("./operations.js").PageAssertParams} params @param {number} frameMs */
async function pageAssert(tab, params, frameMs) {
  const deadline = budget({}, frameMs);
  const frameId = typeof params.frame === "string" && params.frame.trim() ? await locateFrame(tab.id, params.frame) : 0;
  const waitMs = Math.max(0, Math.min(Number(params.timeout_ms) || 0, deadline.left() - 500));
  const asked = { checks: params.checks, redact: params.redact, wait_ms: waitMs };
  return (await inPageAt(tab.id, "page.assert", asked, deadline, frameId)).data;
}

/**
 * A read that runs a script in the page. A page Chrome keeps closed to extensions although its URL looks
 * open — a fresh tab's about:blank, an error page — refuses the script: not_supported with what to do,
 * as the other reads say (not an internal error).
 */
/**
 * @template P
 * @param {(tab: chrome.tabs.Tab, params: P, frameMs: number) => Promise<unknown>} run
 * @returns {(params: P, frameMs: number) => Promise<unknown>}
 */
function scripted(run) {
  return onPage(async (tab, params, frameMs) => {
    try {
      return await run(tab, params, frameMs);
    } catch (err) {
      if (err instanceof TPError) throw err;
      throw closedPage(tab, err, closedKind(tab, err) ?? "browser");
    }
  });
}

/**
 * The target tab as the browser says it is now, for what is shown or acted on by its address: the
 * approval prompt's page and the check that the tab is still on it (tabs.resolve), the cookies
 * state.save takes. The events' description (tabs.js) can trail a pushState or a title the page just set.
 * @param {Record<string, any>} params
 */
function freshTarget(params) {
  return targetTab(params, { fresh: true });
}

/** @param {chrome.tabs.Tab} tab */
const shown = (tab) => ({ tab_id: tab.id, url: tab.url ?? "", title: tab.title ?? "" });

/** @param {import("./operations.js").TabsResolveParams} params */
async function resolveTab(params) {
  return shown(await freshTarget(params));
}

/**
 * The handler of each operation, typed from the generated OpParams: tsc checks that a handler takes its
 * operation's parameters (names, types, enum values) and no other, and the table has every operation.
 * @typedef {import("./operations.js").OpParams} OpParams
 * @type {{[K in keyof OpParams]: (p: OpParams[K], frameMs: number) => Promise<unknown>}}
 */
export const OPS = {
  "page.info": briefOr("page.info", blankPage),
  "dom.query": briefOr("dom.query", noMatches),
  "tabs.list": async () => ({ tabs: await listTabs() }),
  "tabs.track": track,
  "tab.navigate": async (p) => navigate(await targetTab(p), p),
  "js.execute": async (p) => {
    const tab = await targetTab(p);
    assertReadable(tab);
    return executeJs(tab, p);
  },
  "tab.screenshot": async (p, frameMs) => screenshot(await targetTab(p), p, frameMs),
  "tab.crop": async (p) => crop(await targetTab(p), p),
  "tabs.resolve": resolveTab,
  "tabs.open": (p) => openTab(p, navigate),
  "tabs.activate": activateTab,
  "tabs.close": closeTab,
  "state.save": async (p) => saveState(await freshTarget(p)),
  "state.load": async (p) => loadState(await targetTab(p), p),
  "dom.count": elementOp("dom.count", (p) => ({ selector: requireString(p, "selector") })),
  "dom.wait": onPage(waitForState),
  "dom.click": onPage(click),
  "dom.fill": onPage(fill),
  "dom.type": onPage(type),
  "dom.press": onPage(press),
  "dom.select": onPage(select),
  "dom.scroll": elementOp("dom.scroll", (p) => ({ selector: p.selector ?? "", delta_x: p.delta_x, delta_y: p.delta_y, to: p.to })),
  "dom.check": onPage(check),
  "dom.hover": onPage(hover),
  "dom.focus": onPage(focus),
  "dom.drag": onPage(drag),
  "dom.upload": onPage(upload),
  "page.wait_for": onPage(waitForInFrame(waitFor)),
  "tab.history": onPage(history),
  "page.download": onPage(downloadInFrame(download)),
  "page.dismiss_overlays": onPage(dismissOverlays),
  "scrape.extract": onPage(extract),
  "scrape.next_page": onPage(nextPage),
  "page.read": onPage((tab, p) => readInFrame(tab, "page.read", p)),
  "page.assert": onPage(pageAssert),
  "page.injection_scan": scripted((tab, p) => readInFrame(tab, "page.injection_scan", p)),
  "a11y.audit": async (p, frameMs) => audit(await targetTab(p), p, frameMs),
  "dom.snapshot": onPage(async (tab, p, frameMs) => {
    try {
      return await snapshot(tab, p, frameMs);
    } catch (err) {
      const kind = closedKind(tab, err);
      const empty = kind && emptySnapshot(tab, p, kind);
      if (empty) return empty;
      throw err;
    }
  }),
  "dom.highlight": onPage(highlight),
  "dom.describe": async (p) => toContent(await targetTab(p), "dom.describe", p),
  "dialogs.list": async (p) => listDialogs(p),
  "dialog.handle": handleDialog,
  "handoff.start": startHandoff,
  "handoff.end": endHandoff,
  "emulation.set": async (p) => emulate(await targetTab(p), p),
  "emulation.user_agent": async (p) => setUserAgent(await targetTab(p), p),
  "network.headers": async (p) => setHeaders(await targetTab(p), p),
  "network.add_routes": async (p) => addRoutes(await targetTab(p), p),
  "network.routes": async (p) => listRoutes(await targetTab(p)),
  "network.clear_routes": async (p) => clearRoutes(await targetTab(p)),
  "tab.pdf": async (p) => printPdf(await targetTab(p), p),
  "tab.archive": async (p) => archive(await targetTab(p)),
  "page.performance": scripted(performanceOf),
  "capture.flush": async (p) => flushCapture(await targetTab(p)),
};

/**
 * Operations that do not wait on the page: they work while it shows a dialog (tabs.*, these). Every other
 * operation on a tab runs under the dialog guard (dialogs.js): it never hangs on a dialog.
 */
const DIALOG_FREE = new Set(["dialogs.list", "dialog.handle", "handoff.start", "handoff.end"]);

/** @param {string} op @param {import("./operations.js").OperationSpec} spec */
const onATab = (op, spec) => "tab_id" in spec.params && !op.startsWith("tabs.") && !DIALOG_FREE.has(op);

/** `timeoutMs` is the command frame's: how long the app waits for the answer. */
export async function dispatch(op, params, timeoutMs) {
  const spec = Object.hasOwn(OPERATIONS, op) ? OPERATIONS[op] : undefined;
  const handler = spec && Object.hasOwn(OPS, op) ? OPS[op] : undefined;
  if (!handler) throw new TPError(Codes.NOT_SUPPORTED, `This extension does not know the operation '${op}'.`);
  const raw = params ?? {};
  checkParams(op, spec, raw);
  // `frame` (a selector, ref, name or URL pattern of a frame) becomes part of the op's selector here,
  // once for every element op: `@f12 >> .pay`, which inPage and toContent follow into that frame.
  const p = await withFrame(raw);
  if (!onATab(op, spec)) return handler(p, timeoutMs);
  // A tab showing a JavaScript dialog answers nothing: dialog_open at once instead (dialogs.js).
  return guarded(op, p, spec.pageChanging, () => handler(p, timeoutMs));
}
