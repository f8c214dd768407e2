// @ts-check
// scrape.extract (one call into the page: content/extract.js) and scrape.next_page (click the
// next-page control like dom.click, then wait for a navigation or for the rows to change).
import { clickSelector } from "./actions.js";
import { askPage } from "./content.js";
import * as ext from "./ext.js";
import { subscribe, topFrameFromNow } from "./hub.js";
import { splitFrame } from "./frame_refs.js";
import { RawJson } from "./protocol.js";
import { budget, inPage, inPageAt, requireString } from "./waiting.js";

/** @param {import("./operations.js").ScrapeExtractParams} params */
export async function extract(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const { selector, fields, redact, max_bytes: maxBytes } = params;
  const { rows_json: rowsJson, ...data } = await inPage(tab.id, "scrape.extract", { selector, fields, redact, max_bytes: maxBytes }, deadline);
  // The page sent its rows as one JSON text (content/extract.js): into the frame as it is.
  return { rows: new RawJson(rowsJson), ...data };
}

/** Listens for a cross-document navigation of the tab's top frame: `finished` resolves once it loaded. */
function watchNavigation(tabId) {
  let committed = false;
  /** @type {(outcome: {how: string}) => void} */
  let settle = () => {};
  const finished = new Promise((resolve) => {
    settle = resolve;
  });
  const mine = topFrameFromNow(tabId); // not an event of an earlier load (hub.js)
  const onCommitted = (d) => {
    if (mine(d)) committed = true;
  };
  const onCompleted = (d) => {
    if (mine(d) && committed) settle({ how: "navigated" });
  };
  const onError = (d) => {
    if (mine(d) && committed) settle({ how: "navigated" });
  };
  const offs = [
    subscribe(ext.webNavigation.onCommitted, onCommitted),
    subscribe(ext.webNavigation.onCompleted, onCompleted),
    subscribe(ext.webNavigation.onErrorOccurred, onError),
  ];
  return {
    finished,
    get committed() {
      return committed;
    },
    stop() {
      for (const off of offs) off();
    },
  };
}

function after(ms, value) {
  return new Promise((resolve) => setTimeout(() => resolve(value()), ms));
}

/** After the click: `{how: "changed" | "same" | "gone", url}`, as the page shows it. */
async function rowsChanged(tabId, rowsSelector, before, deadline, frameId = 0) {
  let reply;
  try {
    const params = { rows_selector: rowsSelector, rows: before.rows, timeout_ms: deadline.left() };
    reply = await askPage(tabId, "scrape.changed", params, frameId);
  } catch {
    reply = undefined;
  }
  if (!reply?.data) return { how: "gone" }; // the document went away: a navigation decides
  const { changed, url } = reply.data;
  return { how: changed || url !== before.url ? "changed" : "same", url };
}

/** @param {import("./operations.js").ScrapeNextPageParams} params */
export async function nextPage(tab, params, frameMs) {
  const deadline = budget(params, frameMs);
  const nextSelector = requireString(params, "next_selector");
  // In a frame (`@f12 >> .next`, as dispatch qualified it): the probes run in that frame, the click finds it.
  const next = splitFrame(nextSelector);
  const frameId = next.frameId ?? 0;
  const rawRows = typeof params.rows_selector === "string" && params.rows_selector.trim() ? params.rows_selector : "";
  const rowsSelector = frameId ? splitFrame(rawRows).selector : rawRows;
  const probe = { next_selector: frameId ? next.selector : nextSelector, rows_selector: rowsSelector };
  const before = (await inPageAt(tab.id, "scrape.probe", probe, deadline, frameId)).data;
  if (before.next === "none") return { moved: false, reason: "no_next", url: before.url };
  if (before.next === "disabled") return { moved: false, reason: "disabled", url: before.url };

  const nav = watchNavigation(tab.id);
  try {
    await clickSelector(tab.id, nextSelector, deadline);
    let seen = await Promise.race([nav.finished, rowsChanged(tab.id, rowsSelector, before, deadline, frameId)]);
    if (seen.how === "gone") {
      seen = await Promise.race([nav.finished, after(deadline.left(), () => ({ how: nav.committed ? "navigated" : "same" }))]);
    }
    const url = seen.url ?? (await ext.tabs.get(tab.id)).url ?? "";
    if (seen.how === "same") return { moved: false, reason: "no_change", url };
    // How it moved: a new document, or the list changed in place (rows replaced, or appended to). The new
    // document's rows may answer before its load completes: a committed navigation still says "navigate".
    const navigated = seen.how === "navigated" || nav.committed;
    return { moved: true, url, how: navigated ? "navigate" : "in_place" };
  } finally {
    nav.stop();
  }
}
