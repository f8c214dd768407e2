import assert from "node:assert/strict";
import { test } from "node:test";

import { DialogBook, aDialog } from "../background/dialog_book.js";

/** A book with a clock and timers the test moves, and a record of the answers given to the browser. */
function bookWithClock() {
  let now = 1000;
  const timers = new Map();
  let next = 1;
  const answers = [];
  const book = new DialogBook({
    answer: async (tabId, accept, promptText) => {
      answers.push({ tabId, accept, promptText });
    },
    now: () => now,
    setTimer: (fn, ms) => {
      const id = next++;
      timers.set(id, { fn, at: now + ms });
      return /** @type {any} */ (id);
    },
    clearTimer: (id) => timers.delete(id),
  });
  const advance = (ms) => {
    now += ms;
    for (const [id, t] of [...timers]) {
      if (t.at <= now) {
        timers.delete(id);
        t.fn();
      }
    }
  };
  return { book, answers, advance, timers };
}

const CONFIRM = { type: "confirm", message: "Delete item 7?", url: "https://shop.test/items" };

test("an open dialog makes every call on its tab fail at once with dialog_open, and only on that tab", async () => {
  const { book } = bookWithClock();
  book.opened(7, CONFIRM);
  assert.throws(() => book.assertNone(7), (err) => {
    assert.equal(err.code, "dialog_open");
    assert.match(err.message, /Tab 7 shows a confirm dialog: "Delete item 7\?"/);
    assert.match(err.message, /handle_dialog/);
    assert.deepEqual(err.details, {
      tab_id: 7,
      type: "confirm",
      dialog_message: "Delete item 7?",
      default_prompt: "",
      url: "https://shop.test/items",
    });
    return true;
  });
  book.assertNone(8);
  const never = new Promise(() => {});
  await assert.rejects(book.race(7, never), { code: "dialog_open" });
});

test("race: a call that waits on the page ends with dialog_open as soon as a dialog opens", async () => {
  const { book } = bookWithClock();
  const hanging = new Promise(() => {});
  const raced = book.race(3, hanging);
  book.opened(3, { type: "alert", message: "Saved." });
  await assert.rejects(raced, { code: "dialog_open", details: { tab_id: 3, type: "alert", dialog_message: "Saved.", default_prompt: "", url: "" } });
  assert.equal(await book.race(3, Promise.resolve(1)).catch((e) => e.code), "dialog_open");
  assert.equal(book.waiters.size, 0, "no waiter is left behind");
});

test("handle answers the open dialog, remembers who did, and never keeps the prompt's text", async () => {
  const { book, answers } = bookWithClock();
  book.opened(5, { type: "prompt", message: "Name?", defaultPrompt: "item 7" });
  const answered = await book.handle(5, true, "Winter coat", "agent");
  assert.deepEqual(answers, [{ tabId: 5, accept: true, promptText: "Winter coat" }]);
  assert.equal(answered.by, "agent");
  assert.equal(book.current(5), undefined);
  const listed = book.list();
  assert.deepEqual(listed.open, []);
  assert.deepEqual(listed.recent, [
    { tab_id: 5, type: "prompt", message: "Name?", url: "", default_prompt: "item 7", accepted: true, by: "agent" },
  ]);
  assert.ok(!JSON.stringify(listed).includes("Winter coat"));
  assert.equal(await book.handle(5, true, undefined, "agent"), null, "nothing open: nothing answered");
  book.closed(5, { result: true }); // the browser's closed event for our own answer adds nothing
  assert.equal(book.list().recent.length, 1);
});

test("an armed answer takes the tab's next dialog at once and is used once", async () => {
  const { book, answers } = bookWithClock();
  const mark = book.answeredCount;
  book.arm(9, false, undefined);
  assert.deepEqual(book.list(9).armed, [{ tab_id: 9, accept: false, prompt_text: false }]);
  const waiting = book.whenOpened(9);
  let woke = false;
  waiting.promise.then(() => {
    woke = true;
  });
  book.opened(9, CONFIRM);
  await Promise.resolve();
  assert.equal(woke, false, "an armed answer leaves nothing open to wait on");
  waiting.cancel();
  assert.deepEqual(answers, [{ tabId: 9, accept: false, promptText: undefined }]);
  assert.equal(book.current(9), undefined);
  const [given] = book.answeredSince(9, mark);
  assert.equal(given.by, "armed");
  assert.deepEqual(book.answeredSince(10, mark), []);
  book.opened(9, CONFIRM);
  assert.equal(book.current(9)?.type, "confirm", "the next one is left open");
});

test("the person answering in the browser window is remembered as the person", () => {
  const { book } = bookWithClock();
  book.opened(4, CONFIRM);
  book.closed(4, { result: true });
  assert.equal(book.current(4), undefined);
  assert.deepEqual(book.list().recent.map((d) => [d.by, d.accepted]), [["person", true]]);
});

test("the dismiss-after policy dismisses what nobody answered, counted from when it opened", async () => {
  const { book, answers, advance } = bookWithClock();
  assert.deepEqual(book.list().policy, { unanswered: "leave" });
  book.opened(1, CONFIRM);
  advance(60_000);
  assert.equal(answers.length, 0, "left for the agent by default");
  book.setPolicy(2000); // an open dialog falls under the new policy too: it has waited long enough
  advance(0);
  await Promise.resolve();
  assert.deepEqual(answers, [{ tabId: 1, accept: false, promptText: undefined }]);
  assert.deepEqual(book.list().policy, { unanswered: "dismiss", after_ms: 2000 });
  book.opened(2, { type: "alert", message: "hi" });
  advance(1999);
  assert.equal(answers.length, 1);
  advance(1);
  await Promise.resolve();
  assert.equal(answers.length, 2);
  assert.deepEqual(book.list().recent.map((d) => [d.tab_id, d.by, d.accepted]), [[2, "policy", false], [1, "policy", false]]);
  book.opened(3, CONFIRM);
  await book.handle(3, true, undefined, "agent");
  advance(5000);
  assert.equal(answers.length, 3, "an answered dialog's timer is gone");
  book.setPolicy(null);
  book.opened(4, CONFIRM);
  advance(60_000);
  assert.equal(answers.length, 3);
});

test("a closed tab forgets its dialog and its armed answer; the recent list stays short", () => {
  const { book } = bookWithClock();
  book.opened(1, CONFIRM);
  book.arm(2, true, "x");
  book.tabGone(1);
  book.tabGone(2);
  assert.deepEqual(book.list().open, []);
  assert.deepEqual(book.list().armed, []);
  for (let i = 0; i < 30; i++) {
    book.opened(3, { type: "alert", message: `m${i}` });
    book.closed(3);
  }
  assert.equal(book.list().recent.length, 20);
  assert.equal(book.list().recent[0].message, "m29");
});

test("sentences name the dialog with its article: an alert, a confirm", () => {
  assert.equal(aDialog("alert"), "an alert dialog");
  assert.equal(aDialog("confirm"), "a confirm dialog");
  assert.equal(aDialog("prompt"), "a prompt dialog");
  assert.equal(aDialog("beforeunload"), "a beforeunload dialog");
  const { book } = bookWithClock();
  book.opened(3, { type: "alert", message: "Saved", url: "https://shop.test/" });
  assert.throws(() => book.assertNone(3), /Tab 3 shows an alert dialog: "Saved"/);
});
