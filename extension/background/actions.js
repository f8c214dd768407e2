// @ts-check
// Trusted input through CDP: dom.click (mouse), dom.type and dom.press (keyboard). The page decides
// where and whether (content/elements.js: dom.actionable); the events come from the browser, so the
// page sees isTrusted events and their default actions happen (Enter submits a form, Tab moves focus).
import * as cdp from "./cdp.js";
import { askPage } from "./content.js";
import { chordEvents, keyForChar, parseChord } from "./keys.js";
import { navigationNote, watchNavigation } from "./follow.js";
import { Codes, TPError } from "./protocol.js";
import { budget, inPage, inPageAt, requireString } from "./waiting.js";

const MIN_ACK_MS = 1000;

/** A CDP input command, bounded: a page stuck in a dialog or a busy loop does not hang the op. */
async function input(tabId, method, params, deadline) {
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

/**
 * Wait until the first match of `selector` is clickable, then click its centre. The debugger is
 * attached first (in a windowed browser its info bar changes the viewport, so measure after it), and
 * the page guards the click (content/elements.js): a press that lands elsewhere because the layout
 * moved is swallowed, and the element is measured and clicked again while time is left.
 */
export async function clickSelector(tabId, selector, deadline) {
  await cdp.attach(tabId);
  for (;;) {
    // In a frame, the point comes back in the tab's viewport (inPageAt); the guard is in the frame.
    const { data: at, frameId } = await inPageAt(tabId, "dom.actionable", { selector, action: "click" }, deadline);
    const base = { x: at.x, y: at.y };
    await input(tabId, "Input.dispatchMouseEvent", { ...base, type: "mouseMoved", button: "none", buttons: 0 }, deadline);
    await input(tabId, "Input.dispatchMouseEvent", { ...base, type: "mousePressed", button: "left", buttons: 1, clickCount: 1 }, deadline);
    await input(tabId, "Input.dispatchMouseEvent", { ...base, type: "mouseReleased", button: "left", buttons: 0, clickCount: 1 }, deadline);
    let hit;
    try {
      hit = (await askPage(tabId, "dom.hit", {}, frameId))?.data;
    } catch {
      hit = undefined;
    }
    // No answer: the click took the page elsewhere (a navigation), so it landed.
    if (!hit || hit.verdict === "landed" || (hit.verdict === "unseen" && hit.still)) return;
    if (deadline.left() <= 0) {
      throw new TPError(
        Codes.TIMEOUT,
        `'${selector}' kept moving: the click landed on ${hit.target || "nothing"} instead (it was not passed on).`,
        { selector, reason: "moved", timeout_ms: deadline.ms },
      );
    }
  }
}

export async function click(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const followed = watchNavigation(tab.id);
  try {
    await clickSelector(tab.id, requireString(params, "selector"), deadline);
  } catch (err) {
    await followed(0);
    throw err;
  }
  return { clicked: true, ...navigationNote(await followed(deadline.left())) };
}

async function focusSelector(tabId, selector, action, deadline) {
  await cdp.attach(tabId);
  await inPage(tabId, "dom.actionable", { selector, action, focus: true }, deadline);
}

export async function type(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const selector = requireString(params, "selector");
  if (typeof params.text !== "string") {
    throw new TPError(Codes.INVALID_PARAMS, "'text' must be a string.", { param: "text" });
  }
  const chars = [...params.text.replace(/\r\n/g, "\n")];
  await focusSelector(tab.id, selector, "type", deadline);
  let typed = 0;
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
  return { typed };
}

export async function press(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const chord = parseChord(params.key);
  if (params.selector !== undefined && params.selector !== null && params.selector !== "") {
    await focusSelector(tab.id, requireString(params, "selector"), "press", deadline);
  } else {
    await cdp.attach(tab.id);
  }
  const followed = watchNavigation(tab.id);
  try {
    for (const ev of chordEvents(chord)) await input(tab.id, "Input.dispatchKeyEvent", ev, deadline);
  } catch (err) {
    await followed(0);
    throw err;
  }
  return { pressed: params.key, ...navigationNote(await followed(deadline.left())) };
}
