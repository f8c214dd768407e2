import assert from "node:assert/strict";
import { test } from "node:test";

import { MODIFIERS, chordEvents, keyForChar, parseChord } from "../background/keys.js";

const keyOf = (spec) => parseChord(spec).key.key;
const modifiersOf = (spec) => parseChord(spec).modifiers.map((m) => m.key);

test("named keys are found whatever their case", () => {
  assert.deepEqual(parseChord("Enter").key, { key: "Enter", code: "Enter", keyCode: 13, text: "\r" });
  assert.equal(keyOf("enter"), "Enter");
  assert.equal(keyOf("ARROWLEFT"), "ArrowLeft");
  assert.equal(keyOf("Space"), " ");
});

test("modifiers come before the key, each once, in the order given", () => {
  assert.deepEqual(modifiersOf("Control+Shift+ArrowLeft"), ["Control", "Shift"]);
  assert.deepEqual(modifiersOf("shift+control+a"), ["Shift", "Control"]);
  assert.deepEqual(modifiersOf("Control+Control+a"), ["Control"]);
  assert.deepEqual(modifiersOf("a"), []);
});

test("'+' can be the key itself", () => {
  assert.equal(keyOf("+"), "+");
  assert.equal(keyOf("Control++"), "+");
  assert.deepEqual(modifiersOf("Control++"), ["Control"]);
});

test("Shift with a letter types the capital", () => {
  assert.deepEqual(parseChord("Shift+a").key, { key: "A", code: "KeyA", keyCode: 65, text: "A" });
  assert.equal(keyOf("a"), "a");
});

test("a single character off the US layout is pressed as text", () => {
  assert.deepEqual(parseChord("é").key, { key: "é", code: "", keyCode: 0, text: "é" });
});

test("anything else is invalid_params naming the key param", () => {
  for (const spec of ["", "Hyper+a", "Enterr", "Control+", 13, null, undefined]) {
    assert.throws(
      () => parseChord(spec),
      (err) => err.code === "invalid_params" && err.details?.param === "key",
      String(spec),
    );
  }
  assert.throws(() => parseChord("Hyper+a"), /'Hyper' is not a modifier/);
});

test("the US layout: shifted characters share their key's code", () => {
  assert.deepEqual(keyForChar("!"), { key: "!", code: "Digit1", keyCode: 49, text: "!" });
  assert.equal(keyForChar("?").code, "Slash");
  assert.equal(keyForChar("\n").key, "Enter");
  assert.equal(keyForChar("\t").key, "Tab");
  assert.equal(keyForChar("€"), null);
});

test("a chord presses modifiers first and releases them last, with the modifier bits as it goes", () => {
  const events = chordEvents(parseChord("Control+Shift+a"));
  assert.deepEqual(
    events.map((e) => [e.type, e.key, e.modifiers]),
    [
      ["rawKeyDown", "Control", MODIFIERS.control.bit],
      ["rawKeyDown", "Shift", MODIFIERS.control.bit | MODIFIERS.shift.bit],
      ["rawKeyDown", "A", 10],
      ["keyUp", "A", 10],
      ["keyUp", "Shift", MODIFIERS.control.bit],
      ["keyUp", "Control", 0],
    ],
  );
  assert.equal(events[2].text, undefined, "Control held: no text typed");
});

test("a key types its text only when nothing but Shift is held", () => {
  const [down, up] = chordEvents(parseChord("Enter"));
  assert.deepEqual([down.type, down.text, down.unmodifiedText, down.windowsVirtualKeyCode], ["keyDown", "\r", "\r", 13]);
  assert.equal(up.type, "keyUp");
  assert.equal(up.text, undefined);
  const shifted = chordEvents(parseChord("Shift+a")).find((e) => e.type === "keyDown");
  assert.equal(shifted.text, "A");
  assert.equal(chordEvents(parseChord("Tab"))[0].type, "rawKeyDown", "Tab types no text");
});
