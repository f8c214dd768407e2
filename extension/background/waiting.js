// @ts-check
// Time budgets and page readiness for the element operations. A content op that is running when the
// page navigates ends with its document (executeScript then answers null); inPage waits for the tab
// to finish loading and runs the op again in the new document with whatever time is left.
import { closedKind, closedPage } from "./closed_pages.js";
import { askPage, frameGone, unwrap } from "./content.js";
import * as ext from "./ext.js";
import { subscribe } from "./hub.js";
import { splitFrame } from "./frame_refs.js";
import { frameOrigin } from "./frames.js";
import { Codes, TPError } from "./protocol.js";
import { assertReadable, getTab } from "./tabs.js";

const DEFAULT_FRAME_MS = 10_000;
const MAX_MARGIN_MS = 250; // the extension answers this long before the app stops waiting
const HANG_GRACE_MS = 150;

export class Deadline {
  constructor(ms) {
    this.ms = ms;
    this.started = Date.now();
  }
  left() {
    return Math.max(0, this.started + this.ms - Date.now());
  }
  elapsed() {
    return Date.now() - this.started;
  }
}

/**
 * How long an operation may wait: its `timeout_ms` param (default: all of the command's time), capped
 * a little below the command frame's `timeout_ms` so that the page's own answer (element_not_found vs
 * timeout) reaches the app before the app gives up on the command.
 */
export function budget(params, frameMs) {
  const frame = Number.isFinite(frameMs) && frameMs > 0 ? frameMs : DEFAULT_FRAME_MS;
  const cap = Math.max(0, frame - Math.min(MAX_MARGIN_MS, frame / 10));
  const asked = params.timeout_ms;
  if (asked === undefined || asked === null) return new Deadline(cap);
  if (typeof asked !== "number" || !Number.isFinite(asked) || asked < 0) {
    throw new TPError(Codes.INVALID_PARAMS, "'timeout_ms' must be a number of milliseconds (0 or more).", { param: "timeout_ms" });
  }
  return new Deadline(Math.min(asked, cap));
}

export function requireString(params, name) {
  const value = params[name];
  if (typeof value !== "string" || !value.trim()) {
    throw new TPError(Codes.INVALID_PARAMS, `'${name}' must be a non-empty string.`, { param: name });
  }
  return value;
}

function closed(tabId) {
  return new TPError(Codes.TAB_CLOSED, `Tab ${tabId} was closed.`, { tab_id: tabId });
}

/** Resolves true once the tab's status is `complete`, false after `ms`; tab_closed if it goes away. */
export function tabLoaded(tabId, ms) {
  return new Promise((resolve, reject) => {
    let timer = 0;
    /** @type {(() => void)[]} */
    let offs = [];
    const finish = (settle, value) => {
      clearTimeout(timer);
      for (const off of offs) off();
      settle(value);
    };
    const onUpdated = (id, change) => {
      if (id === tabId && change.status === "complete") finish(resolve, true);
    };
    const onRemoved = (id) => {
      if (id === tabId) finish(reject, closed(tabId));
    };
    offs = [subscribe(ext.tabs.onUpdated, onUpdated), subscribe(ext.tabs.onRemoved, onRemoved)];
    timer = setTimeout(() => finish(resolve, false), ms);
    ext.tabs.get(tabId).then(
      (tab) => tab.status === "complete" && finish(resolve, true),
      () => finish(reject, closed(tabId)),
    );
  });
}

function hangGuard(ms) {
  let timer = 0;
  const promise = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ hung: true }), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/** Content ops that answer a viewport point {x, y}: from a frame, it is moved into the tab's viewport. */
const POINT_OPS = new Set(["dom.actionable"]);

/**
 * Run content op `op` in the tab's frame its selector names (`@f12e5`, `@f12 >> .x`: frame 12; else
 * the top frame) with `timeout_ms` = the time left (and `budget_ms`, the whole budget, for
 * messages), surviving navigations:
 * a tab that is about to navigate (a pending URL) or whose document went away mid-op is waited for
 * (until loaded, within the deadline) and the op runs again. Errors the page reports are thrown as is.
 * @param {number} tabId @param {import("./page_ops.js").PageOp} op @param {Record<string, any>} params @param {Deadline} deadline
 */
export async function inPage(tabId, op, params, deadline) {
  return (await inPageAt(tabId, op, params, deadline)).data;
}

/**
 * inPage, also saying which frame answered (`frameId`, 0: the top). `frameId` given: that frame,
 * whatever the selector says. A point a POINT_OPS op answers is in the tab's viewport.
 * @param {number} tabId @param {import("./page_ops.js").PageOp} op @param {Record<string, any>} params
 * @param {Deadline} deadline @param {number} [frameId]
 * @returns {Promise<{data: any, frameId: number}>}
 */
export async function inPageAt(tabId, op, params, deadline, frameId = undefined) {
  const named = splitFrame(params.selector);
  const frame = frameId ?? named.frameId;
  if (frameId === undefined && named.frameId) params = { ...params, selector: named.selector };
  const data = await runInFrame(tabId, frame, op, params, deadline);
  if (frame && POINT_OPS.has(op) && Number.isFinite(data?.x) && Number.isFinite(data?.y)) {
    const origin = await frameOrigin(tabId, frame);
    return { data: { ...data, x: data.x + origin.x, y: data.y + origin.y }, frameId: frame };
  }
  return { data, frameId: frame };
}

/** @param {number} tabId @param {number} frameId @param {import("./page_ops.js").PageOp} op @param {Record<string, any>} params @param {Deadline} deadline */
async function runInFrame(tabId, frameId, op, params, deadline) {
  for (let attempt = 0; ; attempt++) {
    let tab = await getTab(tabId);
    if (tab.status === "loading" && tab.pendingUrl && deadline.left() > 0) {
      await tabLoaded(tabId, deadline.left());
      tab = await getTab(tabId);
    }
    assertReadable(tab);
    const guard = hangGuard(deadline.left() + HANG_GRACE_MS);
    const asking = askPage(tabId, op, { ...params, timeout_ms: deadline.left(), budget_ms: deadline.ms }, frameId);
    asking.catch(() => {}); // when the guard wins, a late failure is nobody's business
    let reply;
    try {
      reply = await Promise.race([asking, guard.promise]);
    } catch (err) {
      // A frame that cannot be entered is one that went away (its refs with it).
      if (frameId) throw frameGone(frameId, params.selector ?? `@f${frameId}`);
      const now = await getTab(tabId);
      if (now.status === "loading") {
        if (deadline.left() <= 0) {
          throw new TPError(Codes.TIMEOUT, `The page was still loading after ${deadline.ms} ms.`, { timeout_ms: deadline.ms });
        }
        await tabLoaded(tabId, deadline.left());
        continue;
      }
      const kind = closedKind(now, err);
      if (kind) throw closedPage(now, err, kind);
      throw new TPError(Codes.NOT_SUPPORTED, `Tabpilot cannot work in this page: ${err?.message ?? err}`, { tab_id: tabId });
    } finally {
      guard.cancel();
    }
    if (reply?.hung) {
      throw new TPError(Codes.TIMEOUT, `The page did not answer within ${deadline.ms} ms (its scripts may be busy).`, {
        timeout_ms: deadline.ms,
      });
    }
    if (reply) return unwrap(reply);
    // The document went away while the op ran: a navigation. Continue in the next document; once
    // the time is up, one last look (with no waiting) gives the page's own answer.
    if (deadline.left() <= 0 && attempt > 0) {
      throw new TPError(Codes.TIMEOUT, `The page kept navigating for ${deadline.ms} ms.`, { timeout_ms: deadline.ms });
    }
    await tabLoaded(tabId, deadline.left());
  }
}

/**
 * dom.wait: `{state, waited_ms}` once the selector reaches the state, across navigations.
 * @param {import("./operations.js").DomWaitParams} params
 */
export async function waitForState(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const selector = requireString(params, "selector");
  const state = params.state ?? "visible";
  const done = await inPage(tab.id, "dom.wait", { selector, state }, deadline);
  return { state: done.state, waited_ms: deadline.elapsed() };
}
