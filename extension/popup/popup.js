// The popup shows the link and the pilot state read-only; only the port can be changed here.
const $ = (id) => document.getElementById(id);

function render(s) {
  const link = $("link");
  const connected = s.status === "connected";
  const labels = { connected: "connected", refused: "refused", unpaired: "not paired", connecting: "connecting…" };
  link.textContent = labels[s.status] ?? "disconnected";
  link.className = `pill ${connected ? "ok" : "bad"}`;
  const pilot = $("pilot");
  const on = connected && s.appState?.ai_web_pilot;
  pilot.textContent = connected ? (on ? "ON" : "off") : "—";
  pilot.className = `pill ${on ? "on" : ""}`;
  $("detail").textContent = connected
    ? `Port ${s.port}${s.managed ? " · managed browser" : ""}`
    : s.lastError || `Looking for the Tabpilot app on port ${s.port ?? "…"}.`;
  const caps = s.appState?.capabilities ?? {};
  $("caps").hidden = !connected || Object.keys(caps).length === 0;
  $("caplist").replaceChildren(
    ...Object.entries(caps).map(([name, enabled]) => {
      const li = document.createElement("li");
      li.innerHTML = `<span></span><span></span>`;
      li.children[0].textContent = name.replaceAll("_", " ");
      li.children[1].textContent = enabled ? "on" : "off";
      return li;
    }),
  );
  $("portform").hidden = !!s.managed;
  $("pairform").hidden = s.managed || s.paired || connected || s.status === "disconnected" || s.status === "connecting";
  $("pairhelp").hidden = $("pairform").hidden;
  $("forget").hidden = s.managed || !connected;
  if (document.activeElement !== $("port") && s.port) $("port").value = s.port;
}

async function refresh() {
  render(await chrome.runtime.sendMessage({ popup: "status" }));
}

$("portform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const port = Number($("port").value);
  if (Number.isInteger(port) && port > 0 && port < 65536) render(await chrome.runtime.sendMessage({ popup: "set-port", port }));
});

$("pairform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  render(await chrome.runtime.sendMessage({ popup: "pair", code: $("code").value }));
});

$("forget").addEventListener("click", async (ev) => {
  ev.preventDefault();
  render(await chrome.runtime.sendMessage({ popup: "forget" }));
});

chrome.storage.session.onChanged.addListener((changes) => {
  if (changes.link) render(changes.link.newValue);
});
refresh();
