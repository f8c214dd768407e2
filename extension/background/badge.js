// @ts-check
// The toolbar badge mirrors the link: red "!" disconnected, nothing when connected, green "AI" with the pilot on.
import * as ext from "./ext.js";
export function showStatus({ status, appState, lastError }) {
  let text = "";
  let color = "#5f6368";
  let title = "Tabpilot";
  if (status !== "connected") {
    text = "!";
    color = "#d93025";
    title =
      status === "unpaired"
        ? "Tabpilot: not paired — open this popup and type the code the Tabpilot app shows"
        : status === "refused"
          ? `Tabpilot: refused — ${lastError}`
          : "Tabpilot: not connected to the app";
  } else if (appState?.ai_web_pilot) {
    text = "AI";
    color = "#188038";
    title = "Tabpilot: connected — AI Web Pilot ON";
  } else {
    title = "Tabpilot: connected — AI Web Pilot off";
  }
  ext.action.setBadgeText({ text });
  ext.action.setBadgeBackgroundColor({ color });
  ext.action.setTitle({ title });
}
