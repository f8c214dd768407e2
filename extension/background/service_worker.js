// Tabpilot's service worker: holds the link to the app and runs the commands it pushes.
import { showStatus } from "./badge.js";
import { startCapture } from "./capture.js";
import { dispatch } from "./commands.js";
import { Connection, WAKE_ALARM } from "./connection.js";

const connection = new Connection(dispatch);
connection.onChange(showStatus);
connection.onChange((snapshot) => chrome.storage.session.set({ link: snapshot }).catch(() => {}));
startCapture(connection); // console, errors, network, bodies, WebSockets from the pages to the app

// A sleeping worker has no timers: an alarm wakes it to retry while the app is away.
chrome.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 });
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === WAKE_ALARM) connection.connect();
});
chrome.runtime.onStartup.addListener(() => connection.connect());
chrome.runtime.onInstalled.addListener(() => connection.connect());

// Tell the app which page the user is looking at, for its approval prompts.
async function reportActivePage() {
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  if (tab) connection.send({ type: "event", name: "page", data: { tab_id: tab.id, url: tab.url ?? "", title: tab.title ?? "" } });
}
chrome.tabs.onActivated.addListener(reportActivePage);
chrome.tabs.onUpdated.addListener((_id, change, tab) => {
  if (tab.active && (change.url || change.title)) reportActivePage();
});
connection.onChange((s) => {
  if (s.status === "connected") reportActivePage();
});

chrome.runtime.onMessage.addListener((msg, sender, reply) => {
  if (sender.id !== chrome.runtime.id || !msg?.popup) return false;
  if (msg.popup === "status") reply(connection.snapshot());
  else if (msg.popup === "set-port") {
    chrome.storage.local.set({ port: msg.port }).then(() => connection.reconnect()).then(() => reply(connection.snapshot()));
    return true;
  } else if (msg.popup === "reconnect") connection.reconnect().then(() => reply(connection.snapshot()));
  else if (msg.popup === "pair") connection.pairWith(msg.code).then(() => reply(connection.snapshot()));
  else if (msg.popup === "forget") connection.forgetPairing().then(() => reply(connection.snapshot()));
  return true;
});

connection.connect();

// For a person debugging in the service worker's DevTools console.
globalThis.tabpilot = { connection, dispatch };
