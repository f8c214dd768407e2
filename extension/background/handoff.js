// @ts-check
// Hand-off to the person: an agent that meets a login, a CAPTCHA or a two-factor prompt brings the tab
// to the front and waits; the popup shows why, with a Resume button. The open hand-offs live in session
// storage (the popup reads them there, and they survive the worker sleeping); Resume, or the tab closing,
// goes to the app as an event, which ends the agent's waiting command.
import * as ext from "./ext.js";
import { Codes, TPError } from "./protocol.js";
import { targetTab } from "./tabs.js";

const KEY = "handoffs";
const MAX_REASON = 300;

/** @typedef {{correlation_id: string, tab_id: number, reason: string, url: string, title: string, since: number}} Handoff */

/** @returns {Promise<Handoff[]>} */
export async function openHandoffs() {
  const stored = (await ext.storage.session.get(KEY))[KEY];
  return Array.isArray(stored) ? stored : [];
}

/** @param {Handoff[]} list */
async function save(list) {
  await ext.storage.session.set({ [KEY]: list });
}

async function badge(tabId, on) {
  await ext.action.setBadgeText({ tabId, text: on ? "!" : "" }).catch(() => {});
  if (on) await ext.action.setBadgeBackgroundColor({ tabId, color: "#b45309" }).catch(() => {});
}

/**
 * handoff.start: the tab in front (its window focused), the reason where the popup shows it.
 * @param {import("./operations.js").HandoffStartParams} params
 */
export async function startHandoff(params) {
  const tab = await targetTab(params);
  if (tab.id === undefined) throw new TPError(Codes.TAB_CLOSED, "The tab is gone.");
  const reason = String(params.reason ?? "").slice(0, MAX_REASON);
  let focused = true;
  try {
    await ext.tabs.update(tab.id, { active: true });
    await ext.windows.update(tab.windowId, { focused: true, drawAttention: true });
  } catch {
    focused = false; // a headless browser has no window to raise; the tab is active even so
  }
  /** @type {Handoff} */
  const handoff = {
    correlation_id: String(params.correlation_id),
    tab_id: tab.id,
    reason,
    url: tab.url ?? "",
    title: tab.title ?? "",
    since: Date.now(),
  };
  await save([...(await openHandoffs()).filter((h) => h.correlation_id !== handoff.correlation_id), handoff]);
  await badge(tab.id, true);
  return { tab_id: tab.id, url: handoff.url, title: handoff.title, focused };
}

/** Forget a hand-off (resumed, cancelled or ended by the app); returns it, or null if it was not open. */
async function drop(correlationId) {
  const list = await openHandoffs();
  const found = list.find((h) => h.correlation_id === correlationId) ?? null;
  if (found) {
    await save(list.filter((h) => h !== found));
    if (!list.some((h) => h !== found && h.tab_id === found.tab_id)) await badge(found.tab_id, false);
  }
  return found;
}

/**
 * handoff.end: the app ended it (resumed from the tray, or the agent's command ended).
 * @param {import("./operations.js").HandoffEndParams} params
 */
export async function endHandoff(params) {
  return { ended: !!(await drop(String(params.correlation_id))) };
}

/**
 * The person pressed Resume in the popup: the hand-off ends and the app hears of it.
 * @param {string} correlationId @param {(msg: object) => void} send
 */
export async function resumeHandoff(correlationId, send) {
  const found = await drop(correlationId);
  if (found) send({ type: "event", name: "handoff", data: { correlation_id: found.correlation_id, tab_id: found.tab_id, action: "resume" } });
  return !!found;
}

/** Called once, as the worker starts: a closed tab cancels its hand-offs. */
export function watchHandoffs(send) {
  ext.tabs.onRemoved.addListener(async (tabId) => {
    for (const h of await openHandoffs()) {
      if (h.tab_id !== tabId) continue;
      await drop(h.correlation_id);
      send({ type: "event", name: "handoff", data: { correlation_id: h.correlation_id, tab_id: tabId, action: "tab_closed" } });
    }
  });
}
