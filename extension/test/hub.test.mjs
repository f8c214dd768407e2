import assert from "node:assert/strict";
import { test } from "node:test";
import { topFrameFromNow } from "../background/hub.js";

test("a watch takes its tab's top-frame events from now on, not one of a load before it began", () => {
  const mine = topFrameFromNow(7);
  const now = Date.now();
  assert.equal(mine({ tabId: 7, frameId: 0, timeStamp: now + 5 }), true);
  assert.equal(mine({ tabId: 7, frameId: 0, timeStamp: now - 5000 }), false); // the fixture's earlier load
  assert.equal(mine({ tabId: 7, frameId: 3, timeStamp: now + 5 }), false);
  assert.equal(mine({ tabId: 8, frameId: 0, timeStamp: now + 5 }), false);
});
