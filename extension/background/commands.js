// @ts-check
// The operations the app may ask for: those operations.js defines (generated from the app's own
// definitions), each with its handler here. Anything else is refused, and so are params it does not declare.
import { audit } from "./a11y.js";
import { check, dismissOverlays, download, drag, fill, focus, history, hover, select, upload, waitFor } from "./acting.js";
import { click, press, type } from "./actions.js";
import * as cdp from "./cdp.js";
import { crop } from "./crop.js";
import { toContent } from "./content.js";
import { guarded, handleDialog, listDialogs } from "./dialogs.js";
import { executeJs } from "./execute.js";
import { readInFrame, withFrame } from "./frames.js";
import { navigate } from "./navigate.js";
import { OPERATIONS } from "./operations.js";
import { checkParams } from "./params.js";
import { Codes, TPError } from "./protocol.js";
import { endHandoff, startHandoff } from "./handoff.js";
import { extract, nextPage } from "./scrape.js";
import { highlight, snapshot } from "./snapshot.js";
import { loadState, saveState } from "./state.js";
import { activateTab, assertReadable, closeTab, getTab, listTabs, openTab, setTracked, targetTab } from "./tabs.js";
import { budget, inPage, requireString, waitForState } from "./waiting.js";

async function screenshot(tab, { format = "png", quality = 80, full_page: fullPage = false }) {
  assertReadable(tab);
  const params = { format, captureBeyondViewport: fullPage };
  if (format === "jpeg") params.quality = quality;
  const metrics = await cdp.send(tab.id, "Page.getLayoutMetrics");
  const box = fullPage ? metrics.cssContentSize : metrics.cssLayoutViewport;
  const width = Math.ceil(box.width ?? box.clientWidth);
  const height = Math.ceil(box.height ?? box.clientHeight);
  if (fullPage) params.clip = { x: 0, y: 0, width, height, scale: 1 };
  const { data } = await cdp.send(tab.id, "Page.captureScreenshot", params);
  return { data, width, height };
}

async function track(params) {
  if (params.clear) {
    await setTracked(null);
    return { tracked: null };
  }
  const tab = Number.isInteger(params.tab_id) ? await getTab(params.tab_id) : await targetTab({});
  await setTracked(tab.id);
  return { tracked: { tab_id: tab.id, url: tab.url ?? "", title: tab.title ?? "" } };
}

/** An op on the page's elements: the target tab, readable; (tab, params, frame timeout_ms) → data. */
// A new tab's about:blank is closed to extensions, but there is nothing in it to read: its answer is
// known (a fresh managed browser starts there, and an agent's first look should not fail).
const isBlank = (tab) => tab.url === "about:blank" && tab.status !== "loading";

function blankPage(tab) {
  return {
    url: "about:blank",
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

function onPage(run) {
  return async (params, frameMs) => {
    const tab = await targetTab(params);
    assertReadable(tab);
    return run(tab, params, frameMs);
  };
}

/** A content op that waits for its element, across navigations (content/elements.js). */
function elementOp(op, pick) {
  return onPage((tab, params, frameMs) => {
    const deadline = budget(params, frameMs);
    return inPage(tab.id, op, pick(params), deadline);
  });
}

async function resolveTab(params) {
  const tab = await targetTab(params);
  return { tab_id: tab.id, url: tab.url ?? "", title: tab.title ?? "" };
}

export const OPS = {
  "page.info": async (p) => {
    const tab = await targetTab(p);
    return isBlank(tab) ? blankPage(tab) : toContent(tab, "page.info", p);
  },
  "dom.query": async (p) => {
    const tab = await targetTab(p);
    return isBlank(tab) ? { url: "about:blank", title: tab.title ?? "", matches: [], matchCount: 0, returnedCount: 0 } : toContent(tab, "dom.query", p);
  },
  "tabs.list": async () => ({ tabs: await listTabs() }),
  "tabs.track": track,
  "tab.navigate": async (p) => navigate(await targetTab(p), p),
  "js.execute": async (p) => {
    const tab = await targetTab(p);
    assertReadable(tab);
    return executeJs(tab, p);
  },
  "tab.screenshot": async (p) => screenshot(await targetTab(p), p),
  "tab.crop": async (p) => crop(await targetTab(p), p),
  "tabs.resolve": resolveTab,
  "tabs.open": (p) => openTab(p, navigate),
  "tabs.activate": activateTab,
  "tabs.close": closeTab,
  "state.save": async (p) => saveState(await targetTab(p)),
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
  "page.wait_for": onPage(waitFor),
  "tab.history": onPage(history),
  "page.download": onPage(download),
  "page.dismiss_overlays": onPage(dismissOverlays),
  "scrape.extract": onPage(extract),
  "scrape.next_page": onPage(nextPage),
  "page.read": onPage((tab, p) => readInFrame(tab, "page.read", p)),
  "a11y.audit": async (p, frameMs) => audit(await targetTab(p), p, frameMs),
  "dom.snapshot": onPage(snapshot),
  "dom.highlight": onPage(highlight),
  "dom.describe": async (p) => toContent(await targetTab(p), "dom.describe", p),
  "dialogs.list": listDialogs,
  "dialog.handle": handleDialog,
  "handoff.start": startHandoff,
  "handoff.end": endHandoff,
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
