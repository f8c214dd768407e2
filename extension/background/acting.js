// @ts-check
// The interact actions beyond click, type and press: fill and select with their settle, check, hover,
// focus, drag, upload, back/forward/reload, wait_for, download and dismiss_overlays. Elements are found
// and measured in the page (content/elements.js, content/acts.js); pointer input is trusted (CDP); each
// action answers what it changed once it settled (background/settle.js).
import { clickSelector, input, pointerMove } from "./actions.js";
import * as cdp from "./cdp.js";
import { askPage } from "./content.js";
import * as ext from "./ext.js";
import { watchNavigation } from "./follow.js";
import { subscribe } from "./hub.js";
import { chordEvents, parseChord } from "./keys.js";
import { linearGlob, linearRegex } from "./patterns.js";
import { Codes, TPError } from "./protocol.js";
import { inflightNow, trackRequests, watchAction } from "./settle.js";
import { getTab } from "./tabs.js";
import { Deadline, budget, inPage, requireString, tabLoaded } from "./waiting.js";

const DRAG_STEPS = 6;
const DISMISS_CLICK_MS = 1500;
const NETWORK_IDLE_MS = 500;
const MAX_DOWNLOAD_BYTES = 32 * 1024 * 1024;

/** Run `act` (content ops that start the page's watch themselves) and answer its data with `changed`. */
async function watched(tab, deadline, act, { noText = false } = {}) {
  const watch = watchAction(tab.id);
  let data;
  try {
    data = await act();
  } catch (err) {
    await watch.abandon();
    throw err;
  }
  return { ...data, ...(await watch.done(deadline, { noText })) };
}

/**
 * Fill as a person (and Playwright's fill) does: the page waits until the field is fillable, focuses it
 * and selects all of its content (content/elements.js dom.fill); then the browser inserts the value as
 * one trusted text input (`Input.insertText`: beforeinput and input with isTrusted, so a framework's
 * controlled input takes it into its state), or, for an empty value, a trusted Delete clears the
 * selection. No `change` is dispatched: it fires when the field loses the focus, as for a person. The
 * input types typing cannot set (date, time, color, range...) are set in the page instead (dom.fill
 * answers `filled` then). The value may be a resolved secret: it goes to the page and to CDP only,
 * never into a message, a trace mark or the answer.
 * @param {import("./operations.js").DomFillParams} params
 */
export async function fill(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const selector = requireString(params, "selector");
  if (typeof params.value !== "string") throw new TPError(Codes.INVALID_PARAMS, "'value' must be a string.", { param: "value" });
  const value = params.value.replace(/\r\n/g, "\n");
  await cdp.attach(tab.id);
  const watch = watchAction(tab.id);
  try {
    const step = await inPage(tab.id, "dom.fill", { selector, value, watch: true }, deadline);
    if (!step?.filled) {
      if (value === "") {
        for (const ev of chordEvents(parseChord("Delete"))) await input(tab.id, "Input.dispatchKeyEvent", ev, deadline);
      } else {
        await input(tab.id, "Input.insertText", { text: value }, deadline);
      }
    }
  } catch (err) {
    await watch.abandon();
    throw err;
  }
  return { filled: true, ...(await watch.done(deadline, { noText: true })) };
}

/** @param {import("./operations.js").DomSelectParams} params */
export async function select(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const p = { selector: requireString(params, "selector"), value: params.value, label: params.label, text: params.text, watch: true };
  const done = await watched(tab, deadline, () => inPage(tab.id, "dom.select", p, deadline));
  const { was_selected: already, ...rest } = done;
  if (already && rest.changed === "no visible change") rest.changed = "already selected; nothing changed";
  return rest;
}

/** @param {import("./operations.js").DomUploadParams} params */
export async function upload(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const files = Array.isArray(params.files) ? params.files : [];
  const p = { selector: requireString(params, "selector"), files, watch: true };
  const done = await watched(tab, deadline, () => inPage(tab.id, "dom.upload", p, deadline));
  const names = done.files.map((f) => `${f.name} (${f.size} bytes)`).join(", ");
  if (done.changed === "no visible change") done.changed = `the input holds ${names}`;
  return done;
}

/**
 * check and uncheck: a trusted click when the state differs, then the state is waited for.
 * @param {import("./operations.js").DomCheckParams} params
 */
export async function check(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const selector = requireString(params, "selector");
  const checked = params.checked !== false;
  const word = checked ? "checked" : "unchecked";
  const state = await inPage(tab.id, "dom.check_state", { selector, checked }, deadline);
  if (state.already) return { checked, changed: `already ${word}; nothing done` };
  const settled = await clickSelector(tab.id, state.target || selector, deadline, { settle: true });
  if (!settled.navigation) await inPage(tab.id, "dom.check_wait", { selector, checked }, deadline);
  const changed = settled.changed === "no visible change" ? word : `${word}; ${settled.changed}`;
  return { checked, ...settled, changed };
}

/** @param {import("./operations.js").DomHoverParams} params */
export async function hover(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const selector = requireString(params, "selector");
  await cdp.attach(tab.id);
  return watched(tab, deadline, async () => {
    const at = await inPage(tab.id, "dom.actionable", { selector, action: "hover", point: true, watch: true }, deadline);
    await pointerMove(tab.id, at, deadline);
    return { hovered: true };
  });
}

/** @param {import("./operations.js").DomFocusParams} params */
export async function focus(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const selector = requireString(params, "selector");
  return watched(tab, deadline, async () => {
    const seen = await inPage(tab.id, "dom.actionable", { selector, action: "focus", focus: true, watch: true }, deadline);
    return { focused: true, tag: seen.tag };
  });
}

function between(a, b, i, steps) {
  return { x: a.x + ((b.x - a.x) * i) / steps, y: a.y + ((b.y - a.y) * i) / steps };
}

/**
 * Press on the source, move in steps to the target, release there: trusted mouse events, so pointer-
 * and mouse-driven sortables follow. An HTML5 draggable is different: Chromium starts its native drag
 * loop, which a headless browser (and a CDP-driven one) never runs, so the drag is intercepted
 * (Input.setInterceptDrags) and played as drag events (Input.dispatchDragEvent: dragEnter, dragOver,
 * drop), which the page sees as trusted dragstart/dragenter/dragover/drop/dragend.
 * @param {import("./operations.js").DomDragParams} params
 */
export async function drag(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const source = requireString(params, "selector");
  const target = requireString(params, "target");
  const tabId = tab.id;
  await cdp.attach(tabId);
  let dragData = null;
  const onEvent = (from, method, ev) => {
    if (from.tabId === tabId && method === "Input.dragIntercepted") dragData = ev?.data ?? null;
  };
  return watched(tab, deadline, async () => {
    let from = await inPage(tabId, "dom.actionable", { selector: source, action: "drag", point: true, watch: true }, deadline);
    // Moving the pointer onto the source can move the page under it (leaving a hover menu closes it and
    // what was below moves up): measured again once the pointer is there, and followed, before pressing.
    for (let moves = 0; moves < 3; moves++) {
      await pointerMove(tabId, from, deadline);
      const now = await inPage(tabId, "dom.actionable", { selector: source, action: "drag", point: true }, deadline);
      const still = Math.abs(now.x - from.x) < 1 && Math.abs(now.y - from.y) < 1;
      from = now;
      if (still) break;
    }
    await input(tabId, "Input.dispatchMouseEvent", { x: from.x, y: from.y, type: "mousePressed", button: "left", buttons: 1, clickCount: 1 }, deadline);
    ext.devtools.onEvent.addListener(onEvent);
    let intercepting = false;
    try {
      try {
        await cdp.send(tabId, "Input.setInterceptDrags", { enabled: true });
        intercepting = true;
      } catch {
        // an older browser: plain mouse moves only
      }
      // The first small move starts a drag (the page's dragstart, or a sortable's pointermove).
      await pointerMove(tabId, { x: from.x + 4, y: from.y + 4 }, deadline, 1);
      await pointerMove(tabId, { x: from.x + 8, y: from.y + 8 }, deadline, 1);
      const to = await inPage(tabId, "dom.actionable", { selector: target, action: "drop", point: true }, deadline);
      if (intercepting) {
        await cdp.send(tabId, "Input.setInterceptDrags", { enabled: false });
        intercepting = false;
      }
      const data = dragData;
      if (data) {
        const drop = (type, at) => input(tabId, "Input.dispatchDragEvent", { type, x: at.x, y: at.y, data, modifiers: 0 }, deadline);
        await drop("dragEnter", from);
        for (let i = 1; i <= DRAG_STEPS; i++) await drop("dragOver", between(from, to, i, DRAG_STEPS));
        await drop("drop", to);
      } else {
        for (let i = 1; i <= DRAG_STEPS; i++) await pointerMove(tabId, between(from, to, i, DRAG_STEPS), deadline, 1);
      }
      await input(tabId, "Input.dispatchMouseEvent", { x: to.x, y: to.y, type: "mouseReleased", button: "left", buttons: 0, clickCount: 1 }, deadline);
      return { dragged: true, html5: !!data };
    } finally {
      ext.devtools.onEvent.removeListener(onEvent);
      if (intercepting) await cdp.send(tabId, "Input.setInterceptDrags", { enabled: false }).catch(() => {});
    }
  });
}

// -- back, forward, reload -------------------------------------------------------------------------

const HISTORY = {
  back: { run: (id) => toEntry(id, -1, "earlier"), word: "back to" },
  forward: { run: (id) => toEntry(id, 1, "later"), word: "forward to" },
  reload: { run: (id) => ext.tabs.reload(id), word: "reloaded" },
};

/**
 * The entry `step` away in the tab's own history, as Playwright's goBack does. Not chrome.tabs.goBack: it
 * skips entries no user gesture made, and a tab the extension opened and navigated has only such entries
 * ("Cannot find a next page in history" after two navigations in a new tab; forward skipped one).
 * @param {number} tabId @param {number} step @param {string} which
 */
async function toEntry(tabId, step, which) {
  const { currentIndex, entries } = /** @type {{currentIndex: number, entries: {id: number}[]}} */ (
    await cdp.send(tabId, "Page.getNavigationHistory")
  );
  const entry = entries[currentIndex + step];
  if (!entry) throw new Error(`this tab has no ${which} page in its history`);
  await cdp.send(tabId, "Page.navigateToHistoryEntry", { entryId: entry.id });
}

/** @param {import("./operations.js").TabHistoryParams} params */
export async function history(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const way = HISTORY[params.direction];
  if (!way) throw new TPError(Codes.INVALID_PARAMS, "'direction' must be back, forward or reload.", { param: "direction" });
  const followed = watchNavigation(tab.id);
  try {
    await way.run(tab.id);
  } catch (err) {
    await followed(0, 0);
    throw new TPError(Codes.NAVIGATION_FAILED, `Cannot go ${params.direction}: ${err?.message ?? err}`, { direction: params.direction });
  }
  const nav = await followed(deadline.left(), 1000);
  if (nav?.pending) {
    throw new TPError(Codes.TIMEOUT, `Going ${params.direction}, ${nav.url} did not finish loading within ${deadline.ms} ms.`, {
      url: nav.url,
      timeout_ms: deadline.ms,
    });
  }
  if (nav?.error) throw new TPError(Codes.NAVIGATION_FAILED, `Going ${params.direction} failed: ${nav.error}.`, { url: nav.url });
  await tabLoaded(tab.id, deadline.left());
  const now = await getTab(tab.id);
  const url = now.url ?? nav?.url ?? "";
  const title = now.title ?? "";
  return { status: "complete", url, title, changed: `${way.word} ${url}${title ? ` '${title}'` : ""}` };
}

// -- wait_for ----------------------------------------------------------------------------------------

/**
 * `*` any characters but `/`, `**` any characters, `?` one; the whole URL must match. Matched in linear
 * time (patterns.js), not by a RegExp: `*a*a*…` on a long URL would backtrack for hours.
 * @param {string} glob @returns {{test: (url: string) => boolean}}
 */
export function globToRegExp(glob) {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      out += ".*";
      i += 1;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += ".";
    else out += c.replace(/[.+^${}()|[\]\\/]/g, "\\$&");
  }
  return linearGlob(`^${out}$`);
}

/** A URL pattern: `/regex/flags` (linear-time, patterns.js), a glob with `*`, or else a substring of the URL. */
export function urlMatcher(pattern) {
  const regex = /^\/(.+)\/([a-z]*)$/.exec(pattern);
  if (regex) {
    let re;
    try {
      re = linearRegex(regex[1], regex[2]);
    } catch (err) {
      const why = err instanceof SyntaxError ? "" : ` (${err?.message ?? err})`;
      throw new TPError(Codes.INVALID_PARAMS, `'url' is not a valid regular expression: ${pattern}${why}`, { param: "url" });
    }
    return (url) => re.test(url);
  }
  if (/[*?]/.test(pattern)) {
    let re;
    try {
      re = globToRegExp(pattern);
    } catch (err) {
      throw new TPError(Codes.INVALID_PARAMS, `'url' is not a glob Tabpilot can match: ${err?.message ?? err}`, { param: "url" });
    }
    return (url) => re.test(url);
  }
  return (url) => url.includes(pattern);
}

function waitUrl(tabId, matches, deadline) {
  return new Promise((resolve, reject) => {
    let timer = 0;
    /** @type {(() => void)[]} */
    let offs = [];
    const finish = (fn, value) => {
      clearTimeout(timer);
      for (const off of offs) off();
      fn(value);
    };
    const test = (url) => {
      if (url && matches(url)) finish(resolve, url);
    };
    const onUpdated = (id, change, t) => {
      if (id === tabId) test(change.url ?? t?.url);
    };
    const onHistory = (d) => {
      if (d.tabId === tabId && d.frameId === 0) test(d.url);
    };
    offs = [
      subscribe(ext.tabs.onUpdated, onUpdated),
      subscribe(ext.webNavigation.onHistoryStateUpdated, onHistory),
      subscribe(ext.webNavigation.onReferenceFragmentUpdated, onHistory),
    ];
    timer = setTimeout(async () => {
      const now = await getTab(tabId).catch(() => null);
      finish(reject, new TPError(Codes.TIMEOUT, `The tab's URL did not match within ${deadline.ms} ms (it is ${now?.url ?? "unknown"}).`, { url: now?.url, timeout_ms: deadline.ms }));
    }, deadline.left());
    getTab(tabId).then((t) => test(t.url ?? ""), (err) => finish(reject, err));
  });
}

/** Idle: no request of the tab in flight (those begun before the call too) for NETWORK_IDLE_MS. */
async function networkIdle(tabId, deadline) {
  const requests = trackRequests(tabId);
  const busy = () => inflightNow(tabId) + requests.count;
  try {
    for (;;) {
      if (busy() === 0) {
        const quietFor = Math.min(NETWORK_IDLE_MS, deadline.left());
        const seen = requests.started;
        const stillQuiet = await new Promise((resolve) => {
          setTimeout(() => resolve(busy() === 0 && requests.started === seen), quietFor);
        });
        if (stillQuiet && quietFor === NETWORK_IDLE_MS) return;
      } else {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (deadline.left() <= 0) {
        throw new TPError(Codes.TIMEOUT, `The tab's network did not go idle within ${deadline.ms} ms (${busy()} requests in flight).`, {
          timeout_ms: deadline.ms,
        });
      }
    }
  } finally {
    requests.stop();
  }
}

/**
 * page.wait_for: exactly one condition (the app checks that too); answers when it holds.
 * @param {import("./operations.js").PageWaitForParams} params
 */
export async function waitFor(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const given = ["selector", "text", "url", "network_idle", "load"].filter((k) => params[k] !== undefined && params[k] !== null && params[k] !== false);
  if (given.length !== 1) {
    throw new TPError(Codes.INVALID_PARAMS, "Give exactly one condition: selector (with state), text, url, network_idle or load.", {
      param: given[1] ?? "selector",
    });
  }
  const [what] = given;
  let answer = {};
  if (what === "selector") {
    const state = params.state ?? "visible";
    await inPage(tab.id, "dom.wait", { selector: requireString(params, "selector"), state }, deadline);
    answer = { condition: `${params.selector} ${state}` };
  } else if (what === "text") {
    const done = await inPage(tab.id, "dom.wait_text", { text: requireString(params, "text") }, deadline);
    answer = { condition: `text '${done.text}'` };
  } else if (what === "url") {
    const url = await waitUrl(tab.id, urlMatcher(requireString(params, "url")), deadline);
    await tabLoaded(tab.id, deadline.left());
    answer = { condition: "url", url };
  } else if (what === "network_idle") {
    await networkIdle(tab.id, deadline);
    answer = { condition: "network idle" };
  } else {
    if (!(await tabLoaded(tab.id, deadline.left()))) {
      throw new TPError(Codes.TIMEOUT, `The page did not finish loading within ${deadline.ms} ms.`, { timeout_ms: deadline.ms });
    }
    answer = { condition: "load" };
  }
  const now = await getTab(tab.id);
  return { ...answer, url: answer.url ?? now.url ?? "", waited_ms: deadline.elapsed() };
}

// -- download --------------------------------------------------------------------------------------

function base64(bytes) {
  let out = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) out += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(out);
}

function nameFrom(disposition) {
  const star = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(disposition ?? "");
  if (star) {
    try {
      return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ""));
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition ?? "");
  return plain ? plain[1].trim() : "";
}

/**
 * page.download: fetch a URL (or a media element's source) from the extension with the browser's
 * cookies for that site (host permission: the request carries them, HttpOnly ones too) and answer the
 * bytes (base64) for the app to save. http(s) only; at most 32 MB.
 * @param {import("./operations.js").PageDownloadParams} params
 */
export async function download(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  let address = params.url;
  let suggested = "";
  if (params.selector) {
    const found = await inPage(tab.id, "dom.media_src", { selector: requireString(params, "selector") }, deadline);
    address = found.url;
    suggested = found.name;
  }
  let url;
  try {
    url = new URL(requireString({ url: address }, "url"), tab.url || undefined);
  } catch (err) {
    if (err instanceof TPError) throw err;
    throw new TPError(Codes.INVALID_PARAMS, `'${address}' is not a URL.`, { param: "url" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TPError(Codes.INVALID_PARAMS, `Only http(s) addresses can be downloaded, not ${url.protocol}.`, { param: "url" });
  }
  let response;
  try {
    response = await fetch(url.href, { credentials: "include", signal: AbortSignal.timeout(Math.max(1, deadline.left())) });
  } catch (err) {
    if (err?.name === "TimeoutError") throw new TPError(Codes.TIMEOUT, `${url.href} did not download within ${deadline.ms} ms.`, { timeout_ms: deadline.ms });
    throw new TPError(Codes.NAVIGATION_FAILED, `Downloading ${url.href} failed: ${err?.message ?? err}.`, { url: url.href });
  }
  if (!response.ok) {
    throw new TPError(Codes.NAVIGATION_FAILED, `The server answered ${response.status} for ${url.href}.`, { url: url.href, status: response.status });
  }
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > MAX_DOWNLOAD_BYTES) {
    throw new TPError(Codes.INVALID_PARAMS, `${url.href} is ${declared} bytes; downloads are limited to ${MAX_DOWNLOAD_BYTES >> 20} MB.`, { size: declared });
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length > MAX_DOWNLOAD_BYTES) {
    throw new TPError(Codes.INVALID_PARAMS, `${url.href} is over ${MAX_DOWNLOAD_BYTES >> 20} MB; downloads are limited to that.`, { size: bytes.length });
  }
  return {
    url: response.url || url.href,
    mime: (response.headers.get("content-type") ?? "").split(";")[0].trim(),
    name: nameFrom(response.headers.get("content-disposition")) || suggested,
    size: bytes.length,
    content_base64: base64(bytes),
  };
}

// -- dismiss_overlays --------------------------------------------------------------------------------

/**
 * Cookie banners and modals: each one's accept or close button clicked (trusted), else it is hidden.
 * @param {import("./operations.js").PageDismissOverlaysParams} params
 */
export async function dismissOverlays(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  await cdp.attach(tab.id);
  return watched(tab, deadline, async () => {
    await askPage(tab.id, "page.watch", {}).catch(() => undefined);
    const { overlays } = await inPage(tab.id, "dom.overlays", {}, deadline);
    const clicked = [];
    for (const overlay of overlays) {
      let ok = false;
      if (overlay.button && deadline.left() > 0) {
        try {
          await clickSelector(tab.id, overlay.button, new Deadline(Math.min(DISMISS_CLICK_MS, deadline.left())));
          ok = true;
        } catch {
          ok = false; // covered by another overlay, or gone: closed the hard way below
        }
      }
      clicked.push(ok);
    }
    const { fates } = await inPage(tab.id, "dom.overlays_close", {}, deadline);
    const closed = overlays.map((o, i) => ({
      what: o.what,
      how: fates[i] === "gone" ? (clicked[i] ? `clicked '${o.label}'` : "went away") : "hidden",
    }));
    return { closed };
  });
}
