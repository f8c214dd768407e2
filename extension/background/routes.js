// @ts-check
// Mocked and blocked routes of a tab: CDP's Fetch domain pauses each request a route might answer
// (Fetch.requestPaused, through chrome.debugger's events), and this answers it — a mock's response
// (after its delay), a block's failure (BlockedByClient, as an ad blocker's), or on to the network.
// The routes are the tab's standing `routes` override (overrides.js): they last across navigations in
// the tab and come back after a fresh attach. The newest route that matches answers (as Playwright's).
//
// The network capture comes from the page (capture/network.js), which cannot tell a mocked answer from
// a real one: each request a route answered is remembered for a minute (route_hits.js), and the capture
// batch that reports it is marked `mocked: true` or `blocked: true`, with the route's pattern (capture.js).
import * as cdp from "./cdp.js";
import * as ext from "./ext.js";
import { headerNames } from "./emulation.js";
import { Codes, TPError } from "./protocol.js";
import { RouteHits } from "./route_hits.js";
import { fetchPatterns, matcher } from "./route_match.js";

/**
 * @typedef {{ id: string, url: string, action: "mock" | "block", status?: number, body?: string,
 *   headers?: Record<string, string>, delay_ms?: number, hits: number }} Route
 */

const MAX_ROUTES = 100;
const MAX_DELAY_MS = 60_000;
/** @type {Map<string, (url: string) => boolean>} */
const compiled = new Map();
const hits = new RouteHits();
let lastId = 0;

/** A route pattern as a test of URLs, compiled once. @param {string} pattern */
function matcherOf(pattern) {
  let check = compiled.get(pattern);
  if (!check) {
    check = matcher(pattern);
    if (compiled.size > 500) compiled.clear();
    compiled.set(pattern, check);
  }
  return check;
}

/** @param {number} tabId @returns {Route[]} */
function routesOf(tabId) {
  return /** @type {Route[] | undefined} */ (cdp.overrides.get(tabId, "routes")?.info) ?? [];
}

/** Make `routes` the tab's standing routes (none: Fetch off, the tab's requests untouched). */
async function store(tabId, /** @type {Route[]} */ routes) {
  if (routes.length === 0) {
    await cdp.overrides.clear(tabId, "routes");
    return;
  }
  const patterns = fetchPatterns(routes.map((r) => r.url));
  // Fetch.enable again replaces the patterns: no undo in between (a request must not slip through).
  cdp.overrides.drop(tabId, "routes");
  await cdp.overrides.set(tabId, "routes", { apply: [["Fetch.enable", { patterns }]], undo: [["Fetch.disable"]], info: routes });
}

/** A route as answers show it: response header names, never their values; the body's size, not the body. */
function shown(/** @type {Route} */ r) {
  /** @type {Record<string, unknown>} */
  const out = { id: r.id, url: r.url, action: r.action, hits: r.hits };
  if (r.action === "mock") {
    out.status = r.status;
    out.body_size = r.body?.length ?? 0;
    out.header_names = Object.keys(r.headers ?? {});
    if (r.delay_ms) out.delay_ms = r.delay_ms;
  }
  return out;
}

/** One route from the app's parameters; refuses a pattern that is no glob or regex. */
function routeOf(/** @type {Record<string, any>} */ raw) {
  const url = raw?.url;
  if (typeof url !== "string" || !url) throw new TPError(Codes.INVALID_PARAMS, "Each route needs a 'url' pattern.");
  try {
    matcherOf(url);
  } catch (err) {
    throw new TPError(Codes.INVALID_PARAMS, `${JSON.stringify(url)} is neither a URL glob nor a /regex/: ${err?.message ?? err}`, { param: "url" });
  }
  if (raw.action === "block") return /** @type {Route} */ ({ id: `r${++lastId}`, url, action: "block", hits: 0 });
  const headers = {};
  for (const [name, value] of Object.entries(raw.headers ?? {})) headers[name] = String(value);
  return /** @type {Route} */ ({
    id: `r${++lastId}`,
    url,
    action: "mock",
    status: Number.isInteger(raw.status) ? raw.status : 200,
    body: typeof raw.body === "string" ? raw.body : "",
    headers,
    delay_ms: Math.min(Math.max(Number(raw.delay_ms) || 0, 0), MAX_DELAY_MS),
    hits: 0,
  });
}

/**
 * `network.add_routes`: new routes for the tab (a mock, or blocks); answers every route it has now.
 * @param {import("./operations.js").NetworkAddRoutesParams} p
 */
export async function addRoutes(tab, p) {
  const tabId = /** @type {number} */ (tab.id);
  if (!Array.isArray(p.routes) || p.routes.length === 0) throw new TPError(Codes.INVALID_PARAMS, "No routes given.");
  const added = p.routes.map(routeOf);
  const routes = [...routesOf(tabId), ...added];
  if (routes.length > MAX_ROUTES) {
    throw new TPError(Codes.INVALID_PARAMS, `A tab keeps at most ${MAX_ROUTES} routes; clear_routes first.`, { routes: routesOf(tabId).length });
  }
  await store(tabId, routes);
  return { added: added.map(shown), routes: routes.map(shown) };
}

/** `network.routes`: the tab's routes, newest last, and the names of its extra headers. */
export async function listRoutes(tab) {
  const tabId = /** @type {number} */ (tab.id);
  return { routes: routesOf(tabId).map(shown), headers: headerNames(tabId) };
}

/** `network.clear_routes`: every route of the tab goes; its requests reach the network again. */
export async function clearRoutes(tab) {
  const tabId = /** @type {number} */ (tab.id);
  const cleared = routesOf(tabId).length;
  await store(tabId, []);
  hits.forget(tabId);
  return { cleared };
}

/** Listen for paused requests; called once, as the worker starts (a paused request waits for an answer). */
export function watchRoutes() {
  ext.devtools.onEvent.addListener((source, method, params) => {
    if (method !== "Fetch.requestPaused" || source.tabId === undefined) return;
    answer(source.tabId, /** @type {any} */ (params)).catch(() => {}); // the request is gone: its page navigated, the tab closed
  });
  ext.tabs.onRemoved.addListener((tabId) => hits.forget(tabId));
}

/** @typedef {{ requestId: string, request: { url: string, method: string, headers: Record<string, string> } }} Paused */

/** @param {number} tabId @param {Paused} ev */
async function answer(tabId, ev) {
  const url = ev.request.url;
  const route = [...routesOf(tabId)].reverse().find((r) => matcherOf(r.url)(url));
  if (!route) {
    await cdp.sendDirect(tabId, "Fetch.continueRequest", { requestId: ev.requestId });
    return;
  }
  if (route.action === "mock" && isPreflight(ev)) {
    // A cross-origin request the page's CORS asks about first: a fake backend says yes (as Playwright's).
    await cdp.sendDirect(tabId, "Fetch.fulfillRequest", { requestId: ev.requestId, responseCode: 204, responseHeaders: preflightHeaders(ev) });
    return;
  }
  route.hits++;
  hits.remember(tabId, url, route.action, route.url);
  if (route.action === "block") {
    await cdp.sendDirect(tabId, "Fetch.failRequest", { requestId: ev.requestId, errorReason: "BlockedByClient" });
    return;
  }
  if (route.delay_ms) await new Promise((resolve) => setTimeout(resolve, route.delay_ms));
  await cdp.sendDirect(tabId, "Fetch.fulfillRequest", {
    requestId: ev.requestId,
    responseCode: route.status ?? 200,
    responseHeaders: responseHeaders(route, ev),
    body: base64(route.body ?? ""),
  });
}

/** A request header, whatever its case. @param {Paused} ev @param {string} name */
function header(ev, name) {
  const found = Object.entries(ev.request.headers ?? {}).find(([key]) => key.toLowerCase() === name);
  return found?.[1];
}

/** @param {Paused} ev */
const isPreflight = (ev) => ev.request.method === "OPTIONS" && header(ev, "access-control-request-method") !== undefined;

/** @param {Paused} ev */
function preflightHeaders(ev) {
  const headers = [
    { name: "Access-Control-Allow-Origin", value: header(ev, "origin") || "*" },
    { name: "Access-Control-Allow-Methods", value: header(ev, "access-control-request-method") || "GET, POST, PUT, PATCH, DELETE" },
    { name: "Access-Control-Allow-Credentials", value: "true" },
  ];
  const asked = header(ev, "access-control-request-headers");
  if (asked) headers.push({ name: "Access-Control-Allow-Headers", value: asked });
  return headers;
}

/**
 * The mock's headers, with a Content-Type when it gave none (JSON for a body that parses as JSON), and —
 * for a cross-origin request, unless the mock says otherwise — the CORS headers that let the page read
 * it (after Playwright's `_maybeAddCorsHeaders`): a made-up backend has no CORS policy to enforce.
 * @param {Route} route @param {Paused} ev
 */
function responseHeaders(route, ev) {
  const headers = Object.entries(route.headers ?? {}).map(([name, value]) => ({ name, value }));
  const has = (name) => headers.some((h) => h.name.toLowerCase() === name);
  if (!has("content-type")) {
    headers.push({ name: "Content-Type", value: looksJson(route.body ?? "") ? "application/json" : "text/plain; charset=utf-8" });
  }
  // The app approved a mock as network (not JavaScript) only when its body cannot run in the page
  // (engine/browser_state/routes.py mock_runs_code): nosniff keeps a <script> from running a text/plain or JSON body.
  if (!has("x-content-type-options")) headers.push({ name: "X-Content-Type-Options", value: "nosniff" });
  const origin = header(ev, "origin");
  if (origin && !has("access-control-allow-origin") && sameOrigin(ev.request.url, origin) === false) {
    headers.push({ name: "Access-Control-Allow-Origin", value: origin });
    headers.push({ name: "Access-Control-Allow-Credentials", value: "true" });
    headers.push({ name: "Vary", value: "Origin" });
  }
  return headers;
}

/** @param {string} url @param {string} origin @returns {boolean | undefined} undefined: not http(s) */
function sameOrigin(url, origin) {
  try {
    const parsed = new URL(url);
    if (!parsed.protocol.startsWith("http")) return undefined;
    return parsed.origin === origin.trim();
  } catch {
    return undefined;
  }
}

function looksJson(/** @type {string} */ body) {
  if (!/^\s*[[{"]/.test(body)) return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

/** UTF-8 text as base64 (Fetch.fulfillRequest takes the body so). @param {string} text */
export function base64(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Mark the page's capture items whose request a route answered (route_hits.js). @param {number} tabId @param {any[]} items */
export function markCaptured(tabId, items) {
  hits.mark(tabId, items);
}
