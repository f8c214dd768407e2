// @ts-check
// The popup shows the link and the pilot state read-only; only the port can be changed here.
// Capability labels come from the app's definitions (capabilities.js is generated).
import { CAPABILITIES } from "../background/capabilities.js";
const $ = (id) => document.getElementById(id);
/** The popup's text fields (popup.html). */
const field = (id) => /** @type {HTMLInputElement} */ ($(id));

const LINK_LABELS = {
  connected: "connected",
  refused: "refused",
  unpaired: "not paired",
  waiting: "waiting",
  connecting: "connecting…",
};

function render(s) {
  const link = $("link");
  const connected = s.status === "connected";
  link.textContent = LINK_LABELS[s.status] ?? "disconnected";
  link.className = `pill ${connected ? "ok" : s.status === "waiting" ? "" : "bad"}`;
  const pilot = $("pilot");
  const on = connected && s.appState?.ai_web_pilot;
  pilot.textContent = connected ? (on ? "ON" : "off") : "—";
  pilot.className = `pill ${on ? "on" : ""}`;
  $("detail").textContent = connected
    ? `Port ${s.port}${s.managed ? " · managed browser" : ""}`
    : s.status === "waiting"
      ? `Paired. ${s.lastError}`
      : s.lastError || `Looking for the Tabpilot app on port ${s.port ?? "…"}.`;
  const caps = s.appState?.capabilities ?? {};
  $("caps").hidden = !connected || Object.keys(caps).length === 0;
  const known = Object.keys(CAPABILITIES).filter((name) => name in caps);
  const others = Object.keys(caps).filter((name) => !(name in CAPABILITIES));
  $("caplist").replaceChildren(
    ...[...known, ...others].map((name) => {
      const li = document.createElement("li");
      li.innerHTML = `<span></span><span></span>`;
      li.children[0].textContent = CAPABILITIES[name]?.label ?? name.replaceAll("_", " ");
      li.children[1].textContent = caps[name] ? "on" : "off";
      return li;
    }),
  );
  // The port matters while looking for the app; once linked, the line above names it.
  $("portform").hidden = !!s.managed || connected || s.status === "waiting";
  $("pairform").hidden = s.managed || s.paired || connected || !["unpaired", "refused"].includes(s.status);
  $("pairhelp").hidden = $("pairform").hidden;
  $("forget").hidden = s.managed || !s.paired;
  if (document.activeElement !== $("port") && s.port) field("port").value = s.port;
}

async function refresh() {
  render(await chrome.runtime.sendMessage({ popup: "status" }));
}

$("portform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const port = Number(field("port").value);
  if (Number.isInteger(port) && port > 0 && port < 65536) render(await chrome.runtime.sendMessage({ popup: "set-port", port }));
});

$("pairform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  render(await chrome.runtime.sendMessage({ popup: "pair", code: field("code").value }));
});

$("forget").addEventListener("click", async (ev) => {
  ev.preventDefault();
  render(await chrome.runtime.sendMessage({ popup: "forget" }));
});

chrome.storage.session.onChanged.addListener((changes) => {
  if (changes.link) render(changes.link.newValue);
});
refresh();
