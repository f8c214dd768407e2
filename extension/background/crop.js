// tab.crop: a picture of the element an approval prompt is about, taken without touching the page
// (no scrolling, no outline drawn in it): the prompt draws the outline on the picture itself.
import * as cdp from "./cdp.js";
import { assertReadable } from "./tabs.js";

const MARGIN = 48; // CSS pixels of context around the element
const MAX_SIDE = 900;

/** The element's box in document coordinates (and the page's size), read in the isolated world. */
function boxOf(selector) {
  let el = null;
  try {
    el = document.querySelector(selector);
  } catch {
    return null;
  }
  if (!el) return null;
  const r = el.getBoundingClientRect();
  const doc = document.documentElement;
  return {
    x: r.left + window.scrollX,
    y: r.top + window.scrollY,
    width: r.width,
    height: r.height,
    pageWidth: Math.max(doc.scrollWidth, window.innerWidth),
    pageHeight: Math.max(doc.scrollHeight, window.innerHeight),
  };
}

export async function crop(tab, { selector }) {
  assertReadable(tab);
  const [frame] = await chrome.scripting.executeScript({ target: { tabId: tab.id, frameIds: [0] }, func: boxOf, args: [selector] });
  const box = frame?.result;
  if (!box) return { found: false };
  const x = Math.max(0, Math.floor(box.x - MARGIN));
  const y = Math.max(0, Math.floor(box.y - MARGIN));
  const width = Math.max(1, Math.min(MAX_SIDE, Math.ceil(box.width + 2 * MARGIN), box.pageWidth - x));
  const height = Math.max(1, Math.min(MAX_SIDE, Math.ceil(box.height + 2 * MARGIN), box.pageHeight - y));
  const { data } = await cdp.send(tab.id, "Page.captureScreenshot", {
    format: "png",
    clip: { x, y, width, height, scale: 1 },
    // Beyond the viewport Chrome would resize the page for a moment, which the page can notice:
    // an element off screen comes out blank instead, and the prompt says so.
    captureBeyondViewport: false,
  });
  const viewport = await cdp.send(tab.id, "Page.getLayoutMetrics");
  const view = viewport.cssVisualViewport ?? viewport.cssLayoutViewport;
  const onScreen =
    box.y + box.height > view.pageY && box.y < view.pageY + view.clientHeight && box.x < view.pageX + view.clientWidth;
  return {
    found: true,
    on_screen: onScreen,
    data,
    width,
    height,
    // where the element is inside the picture
    box: { x: Math.round(box.x - x), y: Math.round(box.y - y), width: Math.round(box.width), height: Math.round(box.height) },
  };
}
