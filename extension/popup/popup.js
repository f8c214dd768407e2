// @ts-check
// The popup shows the link and the pilot state read-only; only the port (and who works in this tab) can be
// changed here. An agent's hand-off shows on top, with its reason and a Resume button. Capability labels
// come from the app's definitions (capabilities.js is generated).
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
  renderHandoff(connected, s.appState ?? {});
}

// Each agent works in its own tabs; the person can hand the tab they look at to one of the agents
// connected now (or take it back). The app keeps who owns what; the browser only says which tab.
/** @type {number | null} */
let thisTab = null;

function renderHandoff(connected, appState) {
  const agents = Array.isArray(appState.agents) ? appState.agents : [];
  const owners = Array.isArray(appState.owners) ? appState.owners : [];
  $("handform").hidden = !connected || thisTab === null || agents.length === 0;
  const owner = owners.find((o) => o.tab_id === thisTab);
  $("owner").textContent = owner ? `Agent ${owner.label} works in this tab.` : "Yours: no agent owns this tab.";
  const select = /** @type {HTMLSelectElement} */ ($("handto"));
  if (document.activeElement === select) return;
  const choices = [{ session: "", label: "nobody (keep it yours)" }, ...agents];
  select.replaceChildren(
    ...choices.map((a) => {
      const option = document.createElement("option");
      option.value = a.session;
      option.textContent = a.label;
      return option;
    }),
  );
  select.value = owner?.session ?? "";
}

async function findThisTab() {
  // Opened as a page (popup.html?tab=N) it is about tab N; as the toolbar popup, about the tab in front.
  const named = Number(new URLSearchParams(location.search).get("tab"));
  if (Number.isInteger(named) && named > 0) return named;
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab?.id ?? null;
}

$("handform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (thisTab === null) return;
  const to = /** @type {HTMLSelectElement} */ ($("handto")).value || null;
  render(await chrome.runtime.sendMessage({ popup: "hand-tab", tab_id: thisTab, to }));
});

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

// Hand-offs (background/handoff.js): an agent brought a tab to the person and waits for Resume.
function renderHandoffs(list) {
  const handoffs = Array.isArray(list) ? list : [];
  $("handoffs").hidden = handoffs.length === 0;
  $("handofflist").replaceChildren(
    ...handoffs.map((h) => {
      const li = document.createElement("li");
      li.innerHTML = `<p class="reason"></p><p class="where"></p><button type="button" class="resume">Resume</button>`;
      li.querySelector(".reason").textContent = h.reason || "The agent asked you to take over in this tab.";
      li.querySelector(".where").textContent = h.title || h.url || `tab ${h.tab_id}`;
      const button = /** @type {HTMLButtonElement} */ (li.querySelector(".resume"));
      button.dataset.correlationId = h.correlation_id;
      button.title = "Done in the page: let the agent go on";
      button.addEventListener("click", async () => {
        button.disabled = true;
        await chrome.runtime.sendMessage({ popup: "resume", correlation_id: h.correlation_id });
      });
      return li;
    }),
  );
}

chrome.storage.session.onChanged.addListener((changes) => {
  if (changes.link) render(changes.link.newValue);
  if (changes.handoffs) renderHandoffs(changes.handoffs.newValue);
});
chrome.storage.session.get("handoffs").then(({ handoffs }) => renderHandoffs(handoffs));
findThisTab().then((id) => {
  thisTab = id;
  refresh();
});
