// @ts-check
// tab.screenshot: a picture of the tab through CDP (Page.captureScreenshot over chrome.debugger, so it
// works in the person's own Chrome as in the managed one): the viewport, the whole page, one element
// (scrolled into view when it is not), or a clip of the page; magnified or shrunk by `scale`; under a
// temporary device (`device`: responsive shots), after which the tab's standing emulation is restored.
// The answer's width and height are the picture's own pixels (its header says), `clip` the page area
// it shows (CSS px from the page's top-left) and `ratio` its pixels per CSS pixel.
import * as cdp from "./cdp.js";
import { frameOrigin } from "./frames.js";
import { Codes, TPError } from "./protocol.js";
import { beyondViewport, capNote, capped, imageSize, readClip, restoreCalls, withinPage } from "./shot_geometry.js";
import { assertReadable } from "./tabs.js";
import { budget, inPageAt } from "./waiting.js";

/** @typedef {import("./shot_geometry.js").Rect} Rect */

function invalid(message, param) {
  return new TPError(Codes.INVALID_PARAMS, message, { param });
}

/** The page's device pixel ratio (an emulated one included): the picture has this many pixels per CSS px. */
async function pixelRatio(tabId) {
  const { result } = await cdp.send(tabId, "Runtime.evaluate", { expression: "devicePixelRatio", returnByValue: true });
  return Number(result?.value) || 1;
}

/** The element's box in document coordinates, scrolled into view first when it is not (content dom.box). */
async function elementArea(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const { data, frameId } = await inPageAt(tab.id, "dom.box", { selector: params.selector }, deadline);
  const origin = frameId ? await frameOrigin(tab.id, frameId) : { x: 0, y: 0 };
  return { x: data.x + origin.x, y: data.y + origin.y, width: data.width, height: data.height };
}

/** @param {Record<string, any>} device */
function deviceMetrics(device) {
  const width = Math.round(Number(device.width));
  const height = Math.round(Number(device.height));
  if (!(width > 0 && height > 0)) throw invalid("'device' needs a width and a height in CSS pixels.", "device");
  return { width, height, deviceScaleFactor: Number(device.device_scale_factor) || 1, mobile: !!device.mobile };
}

const DRAWN_BOUND_MS = 250; // a hidden tab draws no frames: then the picture is taken after this

/**
 * After a device override, until the page has drawn a frame at its new size: a capture at once could show
 * the frame from before the resize, blank where the new layout puts things (seen under load, a tablet shot
 * white). Two animation frames, as a frame asked for in the first is drawn with the new layout.
 */
async function drawnAfterResize(tabId) {
  const expression = `new Promise((done) => {
    const timer = setTimeout(done, ${DRAWN_BOUND_MS});
    try {
      requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(timer); done(); }));
    } catch {} // a page that broke requestAnimationFrame: the bound holds
  })`;
  await cdp.send(tabId, "Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
}

/** Back to the tab's own metrics, then its standing emulation (configure emulate_device), if it has one. */
async function restoreDevice(tabId) {
  for (const [method, params] of restoreCalls(cdp.overrides.get(tabId, "emulation"))) await cdp.send(tabId, method, params);
}

/** The part of the page to take, in document coordinates, and a note when it had to be cut. */
async function areaToTake(tab, params, frameMs) {
  const element = typeof params.selector === "string" && params.selector ? await elementArea(tab, params, frameMs) : null;
  const metrics = await cdp.send(tab.id, "Page.getLayoutMetrics");
  const vv = metrics.cssVisualViewport;
  const view = { x: vv.pageX, y: vv.pageY, width: vv.clientWidth, height: vv.clientHeight };
  const page = { width: metrics.cssContentSize.width, height: metrics.cssContentSize.height };
  let area = view;
  let whole = true; // the viewport as it is: Chrome's own capture, no clip needed
  // The viewport as the screen shows it: a page zoomed (a phone's page without a viewport meta tag is
  // laid out 980 px wide and shown smaller) is drawn at that zoom. Other areas are drawn at 1:1 CSS px.
  let zoom = Number(vv.scale) > 0 ? Number(vv.scale) : 1;
  let cutNote = "";
  if (element) {
    area = { ...element, x: element.x + view.x, y: element.y + view.y };
    whole = false;
    zoom = 1;
  } else if (params.clip !== undefined) {
    const clip = readClip(params.clip);
    if (typeof clip === "string") throw invalid(clip, "clip");
    // A region of the viewport (zoom_region) is cut to the viewport, a clip of the page to the page.
    const inViewport = params.clip_origin === "viewport";
    const bounds = inViewport ? { width: view.width, height: view.height } : page;
    const inside = withinPage(clip, bounds);
    if (!inside) {
      const what = inViewport ? "the region is outside the viewport" : "'clip' is outside the page";
      throw invalid(`${what} (${Math.round(bounds.width)}x${Math.round(bounds.height)} CSS px).`, "clip");
    }
    if (inside.width < clip.width - 0.5 || inside.height < clip.height - 0.5) {
      cutNote =
        `The ${inViewport ? "region" : "clip"} reached past the ${inViewport ? "viewport" : "page"} ` +
        `(${Math.round(bounds.width)}x${Math.round(bounds.height)} CSS px): this shows ` +
        `${Math.round(inside.x)},${Math.round(inside.y)} ${Math.round(inside.width)}x${Math.round(inside.height)}.`;
    }
    area = inViewport ? { ...inside, x: inside.x + view.x, y: inside.y + view.y } : inside;
    whole = false;
    zoom = 1;
  } else if (params.full_page) {
    area = { x: 0, y: 0, width: page.width, height: page.height };
    whole = false;
    zoom = 1;
  }
  return { area, view, whole, zoom, cutNote };
}

/** @param {import("./operations.js").TabScreenshotParams} params */
export async function screenshot(tab, params, frameMs) {
  assertReadable(tab);
  const tabId = tab.id;
  const format = params.format === "jpeg" ? "jpeg" : "png";
  const scale = Number.isFinite(params.scale) && params.scale > 0 ? params.scale : 1;
  if (params.device) {
    await cdp.send(tabId, "Emulation.setDeviceMetricsOverride", deviceMetrics(params.device));
  }
  try {
    if (params.device) await drawnAfterResize(tabId);
    const { area, view, whole, zoom, cutNote } = await areaToTake(tab, params, frameMs);
    const dpr = await pixelRatio(tabId);
    const { area: taken, cut } = capped(area, dpr * scale * zoom);
    /** @type {Record<string, any>} */
    const capture = { format };
    if (format === "jpeg") capture.quality = Number.isInteger(params.quality) ? params.quality : 80;
    if (!whole || scale !== 1 || cut) {
      capture.clip = { ...taken, scale: scale * zoom };
      capture.captureBeyondViewport = beyondViewport(taken, view);
    }
    const { data } = await cdp.send(tabId, "Page.captureScreenshot", capture);
    const ratio = dpr * scale * zoom;
    const size = imageSize(data) ?? { width: Math.round(taken.width * ratio), height: Math.round(taken.height * ratio) };
    const clip = { x: Math.round(taken.x), y: Math.round(taken.y), width: Math.round(taken.width), height: Math.round(taken.height) };
    /** @type {Record<string, any>} */
    const answer = { data, ...size, clip, ratio: size.width / taken.width };
    const notes = [cutNote, cut ? capNote(area, taken) : ""].filter(Boolean);
    if (notes.length) answer.note = notes.join(" ");
    return answer;
  } finally {
    if (params.device) await restoreDevice(tabId);
  }
}
