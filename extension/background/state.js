// @ts-check
// state.save / state.load: what a logged-in page depends on — every cookie the page would send
// (HttpOnly included, through chrome.cookies), its origin's localStorage and sessionStorage, its URL.
// The values go to the app, which keeps them encrypted; they are never shown in an answer.
import * as ext from "./ext.js";
import { navigate } from "./navigate.js";
import { Codes, TPError } from "./protocol.js";
import { assertReadable, getTab } from "./tabs.js";

/** @param {chrome.cookies.Cookie} c */
function kept(c) {
  const cookie = {
    name: c.name,
    value: c.value,
    domain: c.domain,
    hostOnly: c.hostOnly,
    path: c.path,
    secure: c.secure,
    httpOnly: c.httpOnly,
    sameSite: c.sameSite,
  };
  return c.session ? cookie : { ...cookie, expirationDate: c.expirationDate };
}

/** The address a cookie belongs to, as chrome.cookies.set and .remove want it. */
function cookieUrl(c) {
  return `${c.secure ? "https" : "http"}://${String(c.domain).replace(/^\./, "")}${c.path || "/"}`;
}

// Run in the page (executeScript): its origin's two storages, as plain objects.
function readStorages() {
  const dump = (store) => {
    const out = {};
    for (let i = 0; i < store.length; i++) {
      const key = store.key(i);
      if (key !== null) out[key] = store.getItem(key);
    }
    return out;
  };
  try {
    return { local: dump(localStorage), session: dump(sessionStorage) };
  } catch {
    return { local: {}, session: {} }; // an opaque origin has no storage
  }
}

// Run in the page: both storages cleared, then filled with the saved items.
function writeStorages(local, session) {
  const fill = (store, items) => {
    store.clear();
    for (const [key, value] of Object.entries(items)) store.setItem(key, String(value));
    return Object.keys(items).length;
  };
  return { local: fill(localStorage, local), session: fill(sessionStorage, session) };
}

async function inPage(tabId, func, args) {
  const [frame] = await ext.scripting.executeScript({ target: { tabId, frameIds: [0] }, world: "ISOLATED", func, args });
  return frame?.result;
}

const originOf = (url) => {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
};

export async function saveState(tab) {
  assertReadable(tab);
  const url = tab.url ?? "";
  if (!/^https?:/.test(url)) throw new TPError(Codes.NOT_SUPPORTED, "Only a web page's state can be saved; load one first.", { url });
  const cookies = (await ext.cookies.getAll({ url })).map(kept);
  const storages = (await inPage(tab.id, readStorages, [])) ?? { local: {}, session: {} };
  return { url, cookies, localStorage: storages.local, sessionStorage: storages.session };
}

function checked(state) {
  const ok =
    state &&
    typeof state.url === "string" &&
    /^https?:/.test(state.url) &&
    Array.isArray(state.cookies) &&
    state.localStorage && typeof state.localStorage === "object" &&
    state.sessionStorage && typeof state.sessionStorage === "object";
  if (!ok) throw new TPError(Codes.INVALID_PARAMS, "The saved state is not one this extension can restore.");
  return state;
}

/** @param {import("./operations.js").StateLoadParams} params */
export async function loadState(tab, params) {
  const state = checked(params.state);
  const timeoutMs = params.timeout_ms ?? 30_000;
  const go = params.navigate !== false;
  const origin = originOf(state.url);
  assertReadable(tab);
  if (originOf(tab.url ?? "") !== origin) {
    if (!go) {
      throw new TPError(
        Codes.INVALID_PARAMS,
        `The tab shows ${originOf(tab.url ?? "") || tab.url}, the state is of ${origin}: its storages can only be restored there. Pass navigate:true, or navigate there first.`,
        { param: "navigate" },
      );
    }
    await navigate(tab, { url: state.url, wait_until: "load", timeout_ms: timeoutMs }); // storages are per origin
    tab = await getTab(tab.id);
  }
  // Clear first: the cookies the saved page would be sent now, and the origin's storages.
  for (const c of await ext.cookies.getAll({ url: state.url })) {
    await ext.cookies.remove({ url: cookieUrl(c), name: c.name, storeId: c.storeId });
  }
  const written = (await inPage(tab.id, writeStorages, [state.localStorage, state.sessionStorage])) ?? { local: 0, session: 0 };
  let cookies = 0;
  let refused = 0;
  for (const c of state.cookies) {
    /** @type {chrome.cookies.SetDetails} */
    const details = { url: cookieUrl(c), name: c.name, value: c.value, path: c.path, secure: c.secure, httpOnly: c.httpOnly, sameSite: c.sameSite };
    if (!c.hostOnly) details.domain = c.domain;
    if (typeof c.expirationDate === "number") details.expirationDate = c.expirationDate;
    const set = await ext.cookies.set(details).catch(() => null);
    if (set) cookies++;
    else refused++;
  }
  let { url, title = "" } = tab;
  if (go) ({ url, title } = await navigate(tab, { url: state.url, wait_until: "load", timeout_ms: timeoutMs }));
  const restored = { cookies, localStorage: written.local, sessionStorage: written.session, ...(refused ? { cookies_refused: refused } : {}) };
  return { restored, url: url ?? "", title };
}
