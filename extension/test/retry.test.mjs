import assert from "node:assert/strict";
import { test } from "node:test";

import { isRefusal, retryDelay } from "../background/retry.js";

test("while the app is away, tries back off from 250 ms to every 5 s", () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5, 6, 50].map((attempt) => retryDelay(attempt, false)),
    [250, 500, 1000, 2000, 4000, 5000, 5000, 5000],
  );
});

test("after a refusal the next try waits 15 s, whatever the count", () => {
  assert.equal(retryDelay(0, true), 15_000);
  assert.equal(retryDelay(7, true), 15_000);
});

test("refused, unpaired and waiting are refusals; a dropped link is not", () => {
  for (const status of ["refused", "unpaired", "waiting"]) assert.equal(isRefusal(status), true, status);
  for (const status of ["disconnected", "connecting", "connected"]) assert.equal(isRefusal(status), false, status);
});
