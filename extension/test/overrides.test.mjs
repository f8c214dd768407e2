import assert from "node:assert/strict";
import { test } from "node:test";
import { Overrides } from "../background/overrides.js";

function recorder() {
  const sent = [];
  return { sent, send: async (tabId, method, params) => void sent.push([tabId, method, params]) };
}

test("an override is sent when set, held while it stands, undone when cleared", async () => {
  const { sent, send } = recorder();
  const o = new Overrides(send);
  await o.set(7, "emulation", { apply: [["Emulation.setDeviceMetricsOverride", { width: 393 }]], undo: [["Emulation.clearDeviceMetricsOverride"]] });
  assert.deepEqual(sent, [[7, "Emulation.setDeviceMetricsOverride", { width: 393 }]]);
  assert.equal(o.held(7), true);
  assert.equal(o.held(8), false);
  assert.equal(await o.clear(7, "emulation"), true);
  assert.deepEqual(sent.at(-1), [7, "Emulation.clearDeviceMetricsOverride", undefined]);
  assert.equal(o.held(7), false);
  assert.equal(await o.clear(7, "emulation"), false);
});

test("a fresh attach gets every standing override again, in order; a key set twice is sent once", async () => {
  const { sent, send } = recorder();
  const o = new Overrides(send);
  await o.set(1, "headers", { apply: [["Network.enable"], ["Network.setExtraHTTPHeaders", { headers: { a: "1" } }]], undo: [] });
  await o.set(1, "headers", { apply: [["Network.enable"], ["Network.setExtraHTTPHeaders", { headers: { a: "2" } }]], undo: [] });
  await o.set(1, "routes", { apply: [["Fetch.enable", { patterns: [] }]], undo: [["Fetch.disable"]], info: ["x"] });
  sent.length = 0;
  await o.reapply(1);
  assert.deepEqual(
    sent.map(([, m, p]) => [m, p]),
    [["Network.enable", undefined], ["Network.setExtraHTTPHeaders", { headers: { a: "2" } }], ["Fetch.enable", { patterns: [] }]],
  );
  assert.deepEqual(o.get(1, "routes")?.info, ["x"]);
});

test("forgetting a tab sends nothing and releases it", async () => {
  const { sent, send } = recorder();
  const o = new Overrides(send);
  await o.set(3, "user_agent", { apply: [["Emulation.setUserAgentOverride", { userAgent: "x" }]], undo: [] });
  sent.length = 0;
  o.forget(3);
  await o.reapply(3);
  assert.deepEqual(sent, []);
  assert.equal(o.held(3), false);
});

test("clearing all undoes every tab's every override, even when a tab cannot be reached", async () => {
  const sent = [];
  const o = new Overrides(async (tabId, method) => {
    if (tabId === 2 && method === "Fetch.disable") throw new Error("No tab with given id 2.");
    sent.push([tabId, method]);
  });
  await o.set(1, "emulation", { apply: [], undo: [["Emulation.clearDeviceMetricsOverride"]] });
  await o.set(1, "routes", { apply: [], undo: [["Fetch.disable"]] });
  await o.set(2, "routes", { apply: [], undo: [["Fetch.disable"]] });
  assert.deepEqual(await o.clearAll(), [1, 2]);
  assert.deepEqual(sent, [[1, "Emulation.clearDeviceMetricsOverride"], [1, "Fetch.disable"]]);
  assert.equal(o.held(1) || o.held(2), false);
});
