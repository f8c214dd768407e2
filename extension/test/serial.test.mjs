import assert from "node:assert/strict";
import { test } from "node:test";
import { inOrder } from "../background/serial.js";

test("a slow first call is finished before the second starts, and a failure does not stop the queue", async () => {
  const seen = [];
  const handle = inOrder(async (name, ms, fail) => {
    seen.push(`start ${name}`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    seen.push(`end ${name}`);
    if (fail) throw new Error(name);
  });
  // A welcome whose proof takes a while, then the command the app sent right after it.
  const welcome = handle("welcome", 20, true);
  const command = handle("command", 0, false);
  await Promise.all([welcome, command]);
  assert.deepEqual(seen, ["start welcome", "end welcome", "start command", "end command"]);
});
