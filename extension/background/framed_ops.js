// @ts-check
// `frame` on the ops whose condition or address need not be a selector: dispatch's withFrame already put
// the frame into a selector (`@f12 >> #receipt`), so what is left here is page.wait_for's `text` (looked
// for in that frame's document) and page.download's `url` (relative to that frame's address).
import { frameUrl, locateFrame } from "./frames.js";
import { Codes, TPError } from "./protocol.js";
import { getTab } from "./tabs.js";
import { budget, inPageAt, requireString } from "./waiting.js";

/** @param {Record<string, any>} params */
const frameOf = (params) => (typeof params.frame === "string" && params.frame.trim() ? params.frame : null);

/** The tab's own conditions: no frame has a URL bar, a network or a load of its own here. */
const TAB_CONDITIONS = ["url", "network_idle", "load"];

/**
 * page.wait_for with `frame`: `text` waited for in that frame; `url`, `network_idle` and `load` are the
 * tab's (invalid_params). Without `frame` (or with a selector withFrame qualified): `waitFor` itself.
 * @param {(tab: chrome.tabs.Tab, params: Record<string, any>, frameMs: number) => Promise<any>} waitFor
 */
export function waitForInFrame(waitFor) {
  return async (/** @type {chrome.tabs.Tab} */ tab, /** @type {Record<string, any>} */ params, /** @type {number} */ frameMs) => {
    const frame = frameOf(params);
    if (frame === null) return waitFor(tab, params, frameMs);
    const other = TAB_CONDITIONS.find((k) => params[k] !== undefined && params[k] !== null && params[k] !== false);
    if (other) {
      throw new TPError(Codes.INVALID_PARAMS, `'frame' goes with 'selector' or 'text'; ${other} is the tab's, not a frame's.`, { param: "frame" });
    }
    if (params.text === undefined) return waitFor(tab, params, frameMs); // no condition: waitFor says so
    const deadline = budget(params, frameMs);
    const frameId = await locateFrame(/** @type {number} */ (tab.id), frame);
    const text = requireString(params, "text");
    const { data } = await inPageAt(/** @type {number} */ (tab.id), "dom.wait_text", { text }, deadline, frameId);
    const now = await getTab(/** @type {number} */ (tab.id));
    return { condition: `text '${data.text}' in frame '${frame}'`, url: now.url ?? "", waited_ms: deadline.elapsed() };
  };
}

/**
 * page.download with `frame` and a `url`: a relative address is the frame's (as a link in it would be),
 * then `download` fetches it. A selector came qualified (withFrame): its element's address is absolute.
 * @param {(tab: chrome.tabs.Tab, params: Record<string, any>, frameMs: number) => Promise<any>} download
 */
export function downloadInFrame(download) {
  return async (/** @type {chrome.tabs.Tab} */ tab, /** @type {Record<string, any>} */ params, /** @type {number} */ frameMs) => {
    const frame = frameOf(params);
    if (frame === null) return download(tab, params, frameMs);
    const rest = { ...params };
    delete rest.frame;
    if (typeof rest.url === "string" && !rest.selector) {
      const base = await frameUrl(/** @type {number} */ (tab.id), await locateFrame(/** @type {number} */ (tab.id), frame));
      try {
        rest.url = new URL(rest.url, base).href;
      } catch {
        // not a URL: download says so
      }
    }
    return download(tab, rest, frameMs);
  };
}
