// @ts-check
// A tab's device emulation, user agent and extra request headers: standing CDP state (overrides.js),
// so it lasts across navigations in the tab and comes back after a fresh attach, until it is reset or
// the person presses Cancel on Chrome's debugging bar.
//
// Two overrides can set the user agent — a device (`emulation`) and `user_agent` — and the one set
// last wins, live and after a fresh attach alike (an override set again moves to the end of the order
// overrides.js re-sends them in). Undoing one gives the user agent back to the other when it stands.
import * as cdp from "./cdp.js";
import { Codes, TPError } from "./protocol.js";

const UA_KEYS = ["emulation", "user_agent"];
const SET_UA = "Emulation.setUserAgentOverride";
const SEEN_WITHIN_MS = 1500;

/** @typedef {import("./overrides.js").CdpCall} CdpCall */

/** Replace the tab's override `key`: the old one undone first (its touch or user agent must not linger). */
async function replace(tabId, key, /** @type {import("./overrides.js").Override} */ override) {
  await cdp.overrides.clear(tabId, key);
  await cdp.overrides.set(tabId, key, override);
}

/** After undoing a user agent: the other standing override's own, if it sets one, holds again. */
async function restoreUserAgent(tabId) {
  const standing = cdp.overrides.tabs.get(tabId);
  if (!standing) return;
  const last = [...standing.entries()].filter(([key, o]) => UA_KEYS.includes(key) && o.apply.some(([m]) => m === SET_UA)).at(-1);
  const call = last?.[1].apply.find(([m]) => m === SET_UA);
  if (call) await cdp.sendDirect(tabId, call[0], call[1]);
}

/** What the page says it sees now: proof the override took, for the answer (null: it could not say —
 * it is loading, or shows a dialog, which a CDP call must not wait for). */
async function seen(tabId) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(null), SEEN_WITHIN_MS))); // a busy page
  try {
    return await Promise.race([ask(tabId), late]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

async function ask(tabId) {
  const { result } = /** @type {{ result: { value?: unknown } }} */ (
    await cdp.send(tabId, "Runtime.evaluate", {
      expression:
        "({ width: innerWidth, height: innerHeight, device_pixel_ratio: devicePixelRatio, user_agent: navigator.userAgent," +
        " coarse_pointer: matchMedia('(pointer: coarse)').matches, touch_points: navigator.maxTouchPoints })",
      returnByValue: true,
    })
  );
  return result?.value ?? null;
}

/**
 * `emulation.set`: a device's (or a bare viewport's) metrics, touch and user agent; `reset` undoes them.
 * @param {chrome.tabs.Tab} tab @param {import("./operations.js").EmulationSetParams} p
 */
export async function emulate(tab, p) {
  const tabId = /** @type {number} */ (tab.id);
  if (p.reset) {
    const had = cdp.overrides.get(tabId, "emulation");
    await cdp.overrides.clear(tabId, "emulation");
    if (had) await restoreUserAgent(tabId);
    return { reset: true, was: had?.info ?? null, page: await seen(tabId) };
  }
  if (!Number.isInteger(p.width) || !Number.isInteger(p.height)) {
    throw new TPError(Codes.INVALID_PARAMS, "emulation.set needs 'width' and 'height' (or 'reset').");
  }
  const touch = Boolean(p.touch);
  const mobile = Boolean(p.mobile);
  /** @type {Record<string, unknown>} */
  const metrics = { width: p.width, height: p.height, deviceScaleFactor: p.device_scale_factor ?? 0, mobile };
  if (Number.isInteger(p.screen_width) && Number.isInteger(p.screen_height)) {
    metrics.screenWidth = p.screen_width;
    metrics.screenHeight = p.screen_height;
  }
  /** @type {CdpCall[]} */
  const apply = [
    ["Emulation.setDeviceMetricsOverride", metrics],
    ["Emulation.setTouchEmulationEnabled", touch ? { enabled: true, maxTouchPoints: 5 } : { enabled: false }],
    // Mouse input as touch: what makes `(pointer: coarse)` and `(hover: none)` true, as on a phone.
    ["Emulation.setEmitTouchEventsForMouse", touch ? { enabled: true, configuration: mobile ? "mobile" : "desktop" } : { enabled: false }],
  ];
  /** @type {CdpCall[]} */
  const undo = [
    ["Emulation.clearDeviceMetricsOverride"],
    ["Emulation.setTouchEmulationEnabled", { enabled: false }],
    ["Emulation.setEmitTouchEventsForMouse", { enabled: false }],
  ];
  if (typeof p.user_agent === "string" && p.user_agent) {
    apply.push([SET_UA, { userAgent: p.user_agent }]);
    undo.push([SET_UA, { userAgent: "" }]);
  }
  const info = { name: p.name ?? null, width: p.width, height: p.height, device_scale_factor: p.device_scale_factor ?? null, mobile, touch };
  await replace(tabId, "emulation", { apply, undo, info });
  await restoreUserAgent(tabId); // undoing the old device reset the user agent: set_user_agent's may stand
  return { applied: info, page: await seen(tabId) };
}

/**
 * `emulation.user_agent`: the tab's user agent; "" gives back the device's, else the browser's own.
 * @param {import("./operations.js").EmulationUserAgentParams} p
 */
export async function setUserAgent(tab, p) {
  const tabId = /** @type {number} */ (tab.id);
  const userAgent = typeof p.user_agent === "string" ? p.user_agent : "";
  if (!userAgent) {
    const had = await cdp.overrides.clear(tabId, "user_agent");
    if (had) await restoreUserAgent(tabId);
    return { reset: true, page: await seen(tabId) };
  }
  await replace(tabId, "user_agent", { apply: [[SET_UA, { userAgent }]], undo: [[SET_UA, { userAgent: "" }]] });
  return { applied: true, page: await seen(tabId) };
}

/**
 * `network.headers`: extra headers on every request the tab makes; {} removes them. The answer and the
 * override's info name the headers only: their values may be credentials.
 * @param {import("./operations.js").NetworkHeadersParams} p
 */
export async function setHeaders(tab, p) {
  const tabId = /** @type {number} */ (tab.id);
  const headers = /** @type {Record<string, unknown>} */ (p.headers ?? {});
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") throw new TPError(Codes.INVALID_PARAMS, `Header ${JSON.stringify(name)} must have a string value.`);
  }
  const names = Object.keys(headers);
  if (names.length === 0) {
    await cdp.overrides.clear(tabId, "headers");
    return { headers: [] };
  }
  await replace(tabId, "headers", {
    apply: [["Network.enable"], ["Network.setExtraHTTPHeaders", { headers }]],
    undo: [["Network.setExtraHTTPHeaders", { headers: {} }], ["Network.disable"]],
    info: { names },
  });
  return { headers: names };
}

/** The names of the tab's extra headers (list_routes shows them beside the routes). @param {number} tabId */
export function headerNames(tabId) {
  const info = /** @type {{ names?: string[] } | undefined} */ (cdp.overrides.get(tabId, "headers")?.info);
  return info?.names ?? [];
}
