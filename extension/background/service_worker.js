// @ts-check
// Tabpilot's service worker: holds the link to the app and runs the commands it pushes.
import { showStatus } from "./badge.js";
import { startCapture } from "./capture.js";
import * as cdp from "./cdp.js";
import { dispatch } from "./commands.js";
import { Connection, WAKE_ALARM } from "./connection.js";
import { applyPolicy, watchDialogs } from "./dialogs.js";
import * as ext from "./ext.js";
import { watchRoutes } from "./routes.js";
import { watchRequests } from "./settle.js";
import { resumeHandoff, watchHandoffs } from "./handoff.js";
import { watchTabs, watchTrackedTab } from "./tabs.js";

const connection = new Connection(dispatch);
const toApp = (msg) => connection.send(msg);

// Listeners go in at the worker's first turn, so that their events wake it later.
watchTrackedTab();
watchTabs();
cdp.watchDetaches();
watchRequests();
watchDialogs();
watchRoutes(); // mocked and blocked requests: a paused request waits for this worker's answer
watchHandoffs(toApp);

connection.onChange(showStatus);
connection.onChange((snapshot) => applyPolicy(snapshot.appState)); // what to do with dialogs nobody answers
// AI Web Pilot switched off: what agents set in tabs (device emulation, user agent, headers, mocked and
// blocked routes) is undone, so the person's pages are their own again. A lost link is not "off".
let pilotOn = false;
connection.onChange((snapshot) => {
  if (!snapshot.appState) return;
  const on = snapshot.appState.ai_web_pilot === true;
  if (pilotOn && !on) cdp.overrides.clearAll().catch(() => {});
  pilotOn = on;
});
connection.onChange((snapshot) => ext.storage.session.set({ link: snapshot }).catch(() => {}));
startCapture(connection); // console, errors, network, bodies, WebSockets from the pages to the app

// A sleeping worker has no timers: an alarm wakes it to retry while the app is away.
ext.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 });
ext.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === WAKE_ALARM) connection.connect();
});
ext.runtime.onStartup.addListener(() => connection.connect());
ext.runtime.onInstalled.addListener(() => connection.connect());

// Tell the app which page the user is looking at, for its approval prompts.
async function reportActivePage() {
  const [tab] = await ext.tabs.query({ active: true, lastFocusedWindow: true });
  if (tab) connection.send({ type: "event", name: "page", data: { tab_id: tab.id, url: tab.url ?? "", title: tab.title ?? "" } });
}
ext.tabs.onActivated.addListener(reportActivePage);
// The app keeps which agent owns which tab; the browser is the one that knows a tab is gone.
ext.tabs.onRemoved.addListener((tabId) => connection.send({ type: "event", name: "tab_closed", data: { tab_id: tabId } }));
// A tab a page opened (a target=_blank link, window.open): the app gives it to whoever owns its opener.
ext.tabs.onCreated.addListener((tab) => {
  if (tab.id === undefined || tab.openerTabId === undefined) return;
  connection.send({ type: "event", name: "tab_opened", data: { tab_id: tab.id, opener_tab_id: tab.openerTabId } });
});
ext.tabs.onUpdated.addListener((_id, change, tab) => {
  if (tab.active && (change.url || change.title)) reportActivePage();
});
// The app keeps, between calls, which tab a call goes to and the address it shows (its approvals need
// them): tell it when either may have changed — any tab's address, a load starting, the tab in front, the
// window in focus. (Tabs opened and closed are told above.)
const tabMoved = (tabId) => connection.send({ type: "event", name: "tab_updated", data: { tab_id: tabId } });
ext.tabs.onUpdated.addListener((tabId, change) => {
  if (change.url !== undefined || change.status === "loading") tabMoved(tabId);
});
ext.tabs.onActivated.addListener(({ tabId }) => tabMoved(tabId));
ext.windows.onFocusChanged.addListener(() => tabMoved(null));
connection.onChange((s) => {
  if (s.status === "connected") reportActivePage();
});

ext.runtime.onMessage.addListener((msg, sender, reply) => {
  if (sender.id !== ext.runtime.id || !msg?.popup) return false;
  if (msg.popup === "status") reply(connection.snapshot());
  else if (msg.popup === "set-port") {
    ext.storage.local.set({ port: msg.port }).then(() => connection.reconnect()).then(() => reply(connection.snapshot()));
    return true;
  } else if (msg.popup === "reconnect") connection.reconnect().then(() => reply(connection.snapshot()));
  else if (msg.popup === "pair") connection.pairWith(msg.code).then(() => reply(connection.snapshot()));
  else if (msg.popup === "forget") connection.forgetPairing().then(() => reply(connection.snapshot()));
  else if (msg.popup === "hand-tab") {
    // The person hands the tab they are looking at to an agent (`to`: its session), or takes it back (null).
    // Only from the popup's own page, never from a content script in a web page.
    if (!sender.url?.startsWith(ext.runtime.getURL("popup/")) || !Number.isInteger(msg.tab_id)) return false;
    connection.send({ type: "event", name: "hand_tab", data: { tab_id: msg.tab_id, to: typeof msg.to === "string" ? msg.to : null } });
    reply(connection.snapshot());
  } else if (msg.popup === "resume") {
    // Only the person's Resume button ends a hand-off: the popup page itself, never a content script.
    if (sender.url !== ext.runtime.getURL("popup/popup.html")) return false;
    resumeHandoff(String(msg.correlation_id), toApp).then((resumed) => reply({ resumed }));
  }
  return true;
});

connection.connect();

// For a person debugging in the service worker's DevTools console.
globalThis.tabpilot = { connection, dispatch };
