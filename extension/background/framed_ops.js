// @ts-check
// `frame` on the ops whose condition or address need not be a selector: dispatch's withFrame already put
// the frame into a selector (`@f12 >> #receipt`), so what is left here is page.wait_for's `text` (looked
// for in that frame's document) and page.download's `url` (relative to that frame's address).
import { frameUrl, locateFrame } from "./frames.js";
import { getTab } from "./tabs.js";
import { budget, inPageAt, requireString } from "./waiting.js";

/** @param {Record<string, any>} params */
const frameOf = (params) => (typeof params.frame === "string" && params.frame.trim() ? params.frame : null);

/**
 * page.wait_for with `frame`: `text` waited for in that frame (the app refuses `frame` with `url`,
 * `network_idle` and `load`, which are the tab's). Without `frame`, or with a selector withFrame
 * qualified: `waitFor` itself.
 * @param {(tab: chrome.tabs.Tab, params: Record<string, any>, frameMs: number) => Promise<any>} waitFor
 */
export function waitForInFrame(waitFor) {
  return async (/** @type {chrome.tabs.Tab} */ tab, /** @type {Record<string, any>} */ params, /** @type {number} */ frameMs) => {
    const frame = frameOf(params);
    if (frame === null || params.text === undefined) return waitFor(tab, params, frameMs);
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
