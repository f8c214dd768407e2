// @ts-check
// tab.crop: a picture of the element an approval prompt is about, taken without touching the page:
// no debugger (which would show Chrome's bar and resize the page), no scrolling, no outline drawn in
// it. The visible tab is captured and cut in the worker; the prompt draws the outline itself.
// Chrome captures whatever the window shows at that moment, so the tab (still in front, same URL) and
// the element's box are checked again afterwards; a picture taken while either changed is not given.
import { boxInPicture, cropArea, isOnScreen, pictureScale, sameBox } from "./crop_geometry.js";
import * as ext from "./ext.js";
import { assertReadable } from "./tabs.js";

const CAPTURE_GAP_MS = 510; // Chrome allows two captureVisibleTab calls a second

let lastCapture = Promise.resolve(0);

/** captureVisibleTab, one at a time and never faster than Chrome's quota allows. */
function capture(windowId) {
  const turn = lastCapture.then(async (previous) => {
    const wait = previous + CAPTURE_GAP_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return ext.tabs.captureVisibleTab(windowId, { format: "png" }).finally(() => {});
  });
  lastCapture = turn.then(
    () => Date.now(),
    () => Date.now(),
  );
  return turn;
}

/** The element's box in viewport coordinates and the device pixel ratio, read in the isolated world. */
function boxOf(selector) {
  let el = null;
  try {
    // The content lookup when it runs here (refs, shadow roots, `a >> b`), else plain CSS. A frame's
    // ref (`@f12e3`) is not the top frame's: no picture then.
    const lib = globalThis.__tabpilot?.lib;
    el = lib?.first ? lib.first(selector) : document.querySelector(selector);
  } catch {
    return null;
  }
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return { x: r.left, y: r.top, width: r.width, height: r.height, vw: innerWidth, vh: innerHeight, dpr: devicePixelRatio };
}

async function toBase64(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** Notes whether, from now on, another tab comes to the front of the window or the tab navigates or leaves it. */
function watchTab(tab) {
  const seen = { changed: false };
  const activated = ({ tabId, windowId }) => {
    if (windowId === tab.windowId && tabId !== tab.id) seen.changed = true;
  };
  const updated = (tabId, info) => {
    if (tabId === tab.id && (info.url !== undefined || info.status === "loading")) seen.changed = true;
  };
  const gone = (tabId) => {
    if (tabId === tab.id) seen.changed = true;
  };
  ext.tabs.onActivated.addListener(activated);
  ext.tabs.onUpdated.addListener(updated);
  ext.tabs.onDetached.addListener(gone);
  ext.tabs.onRemoved.addListener(gone);
  seen.stop = () => {
    ext.tabs.onActivated.removeListener(activated);
    ext.tabs.onUpdated.removeListener(updated);
    ext.tabs.onDetached.removeListener(gone);
    ext.tabs.onRemoved.removeListener(gone);
  };
  return seen;
}

async function boxIn(tabId, selector) {
  const [frame] = await ext.scripting.executeScript({ target: { tabId, frameIds: [0] }, func: boxOf, args: [selector] });
  return frame?.result ?? null;
}

/** The answer, or null when the tab, its page or the element changed while the picture was taken. */
async function attempt(tab, selector) {
  const watch = watchTab(tab);
  try {
    const now = await ext.tabs.get(tab.id);
    const box = await boxIn(tab.id, selector);
    if (!box) return { found: false };
    if (!now.active || now.windowId !== tab.windowId || now.url !== tab.url || !isOnScreen(box)) return { found: true, on_screen: false };
    const shot = await capture(tab.windowId);
    const after = await ext.tabs.get(tab.id);
    const boxAfter = await boxIn(tab.id, selector);
    if (watch.changed || !after.active || after.windowId !== tab.windowId || after.url !== tab.url || !sameBox(box, boxAfter)) {
      return null;
    }
    return { box, shot };
  } finally {
    watch.stop();
  }
}

/** @param {chrome.tabs.Tab} tab @param {import("./operations.js").TabCropParams} param1 */
export async function crop(tab, { selector }) {
  assertReadable(tab);
  if (!tab.active) return { found: true, on_screen: false };
  let seen = await attempt(tab, selector);
  seen ??= await attempt(tab, selector); // once more: the page may just have been scrolling
  if (!seen) return { found: true, on_screen: false };
  if (!seen.shot) return seen;
  const { box, shot } = seen;
  const { x, y, width, height } = cropArea(box);
  const bitmap = await createImageBitmap(await (await fetch(shot)).blob());
  const scale = pictureScale(bitmap.width, box);
  const canvas = new OffscreenCanvas(Math.round(width * scale), Math.round(height * scale));
  canvas.getContext("2d").drawImage(bitmap, x * scale, y * scale, width * scale, height * scale, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return {
    found: true,
    on_screen: true,
    data: await toBase64(await canvas.convertToBlob({ type: "image/png" })),
    width: canvas.width,
    height: canvas.height,
    box: boxInPicture(box, { x, y, width, height }, scale),
  };
}
