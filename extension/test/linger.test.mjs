import assert from "node:assert/strict";
import { test } from "node:test";

import { Linger } from "../background/linger.js";

/** Timers run by hand: `fire()` runs the pending ones. */
function fakeTimers() {
  let next = 1;
  const pending = new Map();
  return {
    setTimer: (fn) => {
      const id = next++;
      pending.set(id, fn);
      return id;
    },
    clearTimer: (id) => pending.delete(id),
    async fire() {
      const due = [...pending.values()];
      pending.clear();
      for (const fn of due) await fn();
    },
    get count() {
      return pending.size;
    },
  };
}

function setup(held = () => false) {
  const timers = fakeTimers();
  const detached = [];
  const linger = new Linger({ detach: async (id) => void detached.push(id), held, ms: 1000, ...timers });
  return { timers, detached, linger };
}

test("a tab's debugger is detached a linger after its last use, not before", async () => {
  const { timers, detached, linger } = setup();
  linger.touch(7);
  linger.touch(7); // calls keep coming: one timer, re-armed
  assert.equal(timers.count, 1);
  assert.deepEqual(detached, []);
  await timers.fire();
  assert.deepEqual(detached, [7]);
  assert.equal(timers.count, 0);
});

test("an operation in progress keeps the tab attached; its end starts the linger again", async () => {
  const { timers, detached, linger } = setup();
  linger.touch(7);
  const release = linger.hold(7);
  await timers.fire();
  assert.deepEqual(detached, [], "held: not detached");
  assert.equal(timers.count, 1, "looked at again a linger later");
  release();
  release(); // twice is once
  await timers.fire();
  assert.deepEqual(detached, [7]);
});

test("the dialog watch can keep a tab attached (a dialog open, an answer armed, a hand-off)", async () => {
  let dialogOpen = true;
  const { timers, detached, linger } = setup(async () => dialogOpen);
  linger.touch(3);
  await timers.fire();
  assert.deepEqual(detached, []);
  dialogOpen = false;
  await timers.fire();
  assert.deepEqual(detached, [3]);
});

test("a tab detached by the browser or closed is forgotten", async () => {
  const { timers, detached, linger } = setup();
  linger.touch(5);
  linger.forget(5);
  await timers.fire();
  assert.deepEqual(detached, []);
});
