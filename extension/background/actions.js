// @ts-check
// Trusted input through CDP: dom.click (mouse), dom.type and dom.press (keyboard). The page decides
// where and whether (content/elements.js: dom.actionable); the events come from the browser, so the
// page sees isTrusted events and their default actions happen (Enter submits a form, Tab moves focus).
import * as cdp from "./cdp.js";
import { askPage } from "./content.js";
import { chordEvents, keyForChar, parseChord } from "./keys.js";
import { Codes, TPError } from "./protocol.js";
import { watchAction } from "./settle.js";
import { budget, inPage, inPageAt, requireString } from "./waiting.js";

const MIN_ACK_MS = 1000;

/** A CDP input command, bounded: a page stuck in a dialog or a busy loop does not hang the op. */
export async function input(tabId, method, params, deadline) {
  let timer = 0;
  const limit = Math.max(MIN_ACK_MS, deadline.left());
  const stuck = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new TPError(Codes.TIMEOUT, `The page did not take the input within ${limit} ms (a dialog may be open, or its scripts are busy).`)),
      limit,
    );
  });
  try {
    return await Promise.race([cdp.send(tabId, method, params), stuck]);
  } finally {
    clearTimeout(timer);
  }
}

const BUTTONS = { left: 1, right: 2, middle: 4 };
const MODIFIER_BITS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

/** The CDP modifiers mask of `["Shift", "Control"]`; invalid_params for anything else. */
export function modifierMask(names) {
  let mask = 0;
  for (const name of names ?? []) {
    const bit = MODIFIER_BITS[name];
    if (!bit) {
      throw new TPError(Codes.INVALID_PARAMS, `'modifiers' takes ${Object.keys(MODIFIER_BITS).join(", ")}; got '${name}'.`, {
        param: "modifiers",
      });
    }
    mask |= bit;
  }
  return mask;
}

/** A pointer move to (x, y), with `buttons` held (a bit mask) and the modifiers. */
export function pointerMove(tabId, at, deadline, buttons = 0, modifiers = 0) {
  const button = buttons & 1 ? "left" : buttons & 2 ? "right" : buttons & 4 ? "middle" : "none";
  return input(tabId, "Input.dispatchMouseEvent", { x: at.x, y: at.y, type: "mouseMoved", button, buttons, modifiers }, deadline);
}

/**
 * Press and release `button` at (x, y), `count` times (a double click is two, the second with clickCount 2).
 * The events are sent one after another without waiting for each answer: the browser keeps their order
 * (one debugger session, one input queue), so the page still sees move, press, release as trusted events
 * at that point. Waiting for the move's answer alone cost half a frame on average: a renderer delivers
 * mouse moves with the next animation frame and answers then, while a press flushes them at once.
 */
async function pointerClick(tabId, at, deadline, { button = "left", count = 1, modifiers = 0 } = {}) {
  const base = { x: at.x, y: at.y, button, modifiers };
  const sent = [pointerMove(tabId, at, deadline, 0, modifiers)];
  for (let n = 1; n <= count; n++) {
    sent.push(input(tabId, "Input.dispatchMouseEvent", { ...base, type: "mousePressed", buttons: BUTTONS[button], clickCount: n }, deadline));
    sent.push(input(tabId, "Input.dispatchMouseEvent", { ...base, type: "mouseReleased", buttons: 0, clickCount: n }, deadline));
  }
  for (const one of sent) one.catch(() => {}); // the first failure is the answer; later ones are its echo
  await Promise.all(sent);
}

const landed = (hit) => !hit || hit.verdict === "landed" || (hit.verdict === "unseen" && hit.still);

/**
 * Wait until the first match of `selector` is clickable, then click its centre. The debugger is
 * attached first (in a windowed browser its info bar changes the viewport, so measure after it), and
 * the page guards the click (content/elements.js): a press that lands elsewhere because the layout
 * moved is swallowed, and the element is measured and clicked again while time is left. With `settle`,
 * the answer says what the click changed once it settled (background/settle.js): `{changed, navigation?}`.
 * @param {number} tabId @param {string} selector @param {import("./waiting.js").Deadline} deadline
 * @param {{settle?: boolean, button?: string, count?: number, modifiers?: number}} [options]
 * @returns {Promise<{changed?: string, navigation?: object}>}
 */
export async function clickSelector(tabId, selector, deadline, { settle = false, ...how } = {}) {
  await cdp.attach(tabId);
  for (;;) {
    const watch = settle ? watchAction(tabId) : null;
    let hit;
    /** @type {{changed?: string, navigation?: object, hit?: any}} */
    let settled = {};
    try {
      // In a frame, the point comes back in the tab's viewport (inPageAt); the guard and the watch are in the frame.
      const { data: at, frameId } = await inPageAt(tabId, "dom.actionable", { selector, action: "click", watch: settle }, deadline);
      await pointerClick(tabId, at, deadline, how);
      if (watch) {
        settled = await watch.done(deadline, { hit: true, frameId });
        hit = settled.hit;
      } else {
        hit = (await askPage(tabId, "dom.hit", {}, frameId).catch(() => undefined))?.data;
      }
    } catch (err) {
      await watch?.abandon();
      throw err;
    }
    // No answer: the click took the page elsewhere (a navigation), so it landed.
    if (landed(hit)) {
      delete settled.hit;
      return settled;
    }
    if (deadline.left() <= 0) {
      throw new TPError(
        Codes.TIMEOUT,
        `'${selector}' kept moving: the click landed on ${hit.target || "nothing"} instead (it was not passed on).`,
        { selector, reason: "moved", timeout_ms: deadline.ms },
      );
    }
  }
}

const BUTTON_NAMES = Object.keys(BUTTONS);

/** @param {import("./operations.js").DomClickParams} params */
export async function click(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const button = params.button ?? "left";
  if (!BUTTON_NAMES.includes(button)) {
    throw new TPError(Codes.INVALID_PARAMS, `'button' must be one of ${BUTTON_NAMES.join(", ")}.`, { param: "button" });
  }
  const count = params.click_count ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > 3) {
    throw new TPError(Codes.INVALID_PARAMS, "'click_count' must be 1, 2 or 3.", { param: "click_count" });
  }
  const modifiers = modifierMask(params.modifiers);
  const settled = await clickSelector(tab.id, requireString(params, "selector"), deadline, { settle: true, button, count, modifiers });
  return { clicked: true, ...settled };
}

async function focusSelector(tabId, selector, action, deadline, watch = false) {
  await cdp.attach(tabId);
  await inPage(tabId, "dom.actionable", { selector, action, focus: true, watch }, deadline);
}

/** @param {import("./operations.js").DomTypeParams} params */
export async function type(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const selector = requireString(params, "selector");
  if (typeof params.text !== "string") {
    throw new TPError(Codes.INVALID_PARAMS, "'text' must be a string.", { param: "text" });
  }
  const chars = [...params.text.replace(/\r\n/g, "\n")];
  const watch = watchAction(tab.id);
  let typed = 0;
  try {
    await focusSelector(tab.id, selector, "type", deadline, true);
    for (const ch of chars) {
      if (typed > 0 && deadline.left() <= 0) {
        throw new TPError(Codes.TIMEOUT, `Typed ${typed} of ${chars.length} characters before the time ran out.`, {
          typed,
          timeout_ms: deadline.ms,
        });
      }
      const key = keyForChar(ch);
      if (key) {
        for (const ev of chordEvents({ modifiers: [], key })) await input(tab.id, "Input.dispatchKeyEvent", ev, deadline);
      } else {
        await input(tab.id, "Input.insertText", { text: ch }, deadline);
      }
      typed += 1;
    }
  } catch (err) {
    await watch.abandon();
    throw err;
  }
  return { typed, ...(await watch.done(deadline, { noText: true })) };
}

/** @param {import("./operations.js").DomPressParams} params */
export async function press(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const chord = parseChord(params.key);
  const watch = watchAction(tab.id);
  try {
    if (params.selector !== undefined && params.selector !== null && params.selector !== "") {
      await focusSelector(tab.id, requireString(params, "selector"), "press", deadline, true);
    } else {
      await cdp.attach(tab.id);
      await askPage(tab.id, "page.watch", {}).catch(() => undefined);
    }
    for (const ev of chordEvents(chord)) await input(tab.id, "Input.dispatchKeyEvent", ev, deadline);
  } catch (err) {
    await watch.abandon();
    throw err;
  }
  return { pressed: params.key, ...(await watch.done(deadline)) };
}
