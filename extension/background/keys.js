// @ts-check
// Key names and the US keyboard layout, turned into the fields of CDP Input.dispatchKeyEvent.
import { Codes, TPError } from "./protocol.js";

export const MODIFIERS = Object.freeze({
  alt: { bit: 1, key: "Alt", code: "AltLeft", keyCode: 18, location: 1 },
  control: { bit: 2, key: "Control", code: "ControlLeft", keyCode: 17, location: 1 },
  meta: { bit: 4, key: "Meta", code: "MetaLeft", keyCode: 91, location: 1 },
  shift: { bit: 8, key: "Shift", code: "ShiftLeft", keyCode: 16, location: 1 },
});
const SHIFT = MODIFIERS.shift.bit;

const NAMED = {
  Enter: { key: "Enter", code: "Enter", keyCode: 13, text: "\r" },
  Tab: { key: "Tab", code: "Tab", keyCode: 9 },
  Escape: { key: "Escape", code: "Escape", keyCode: 27 },
  Backspace: { key: "Backspace", code: "Backspace", keyCode: 8 },
  Delete: { key: "Delete", code: "Delete", keyCode: 46 },
  ArrowUp: { key: "ArrowUp", code: "ArrowUp", keyCode: 38 },
  ArrowDown: { key: "ArrowDown", code: "ArrowDown", keyCode: 40 },
  ArrowLeft: { key: "ArrowLeft", code: "ArrowLeft", keyCode: 37 },
  ArrowRight: { key: "ArrowRight", code: "ArrowRight", keyCode: 39 },
  Home: { key: "Home", code: "Home", keyCode: 36 },
  End: { key: "End", code: "End", keyCode: 35 },
  PageUp: { key: "PageUp", code: "PageUp", keyCode: 33 },
  PageDown: { key: "PageDown", code: "PageDown", keyCode: 34 },
  Space: { key: " ", code: "Space", keyCode: 32, text: " " },
};
const NAMED_LOWER = new Map(Object.keys(NAMED).map((name) => [name.toLowerCase(), NAMED[name]]));

// Printable ASCII on a US keyboard: [unshifted, shifted, code, keyCode].
const PUNCTUATION = [
  ["-", "_", "Minus", 189], ["=", "+", "Equal", 187], ["[", "{", "BracketLeft", 219], ["]", "}", "BracketRight", 221],
  ["\\", "|", "Backslash", 220], [";", ":", "Semicolon", 186], ["'", '"', "Quote", 222], [",", "<", "Comma", 188],
  [".", ">", "Period", 190], ["/", "?", "Slash", 191], ["`", "~", "Backquote", 192],
];
const LAYOUT = new Map();
for (let i = 0; i < 26; i++) {
  const lower = String.fromCharCode(97 + i);
  const upper = lower.toUpperCase();
  for (const ch of [lower, upper]) LAYOUT.set(ch, { key: ch, code: `Key${upper}`, keyCode: 65 + i, text: ch });
}
")!@#$%^&*(".split("").forEach((shifted, digit) => {
  const code = `Digit${digit}`;
  LAYOUT.set(String(digit), { key: String(digit), code, keyCode: 48 + digit, text: String(digit) });
  LAYOUT.set(shifted, { key: shifted, code, keyCode: 48 + digit, text: shifted });
});
for (const [plain, shifted, code, keyCode] of PUNCTUATION) {
  LAYOUT.set(plain, { key: plain, code, keyCode, text: plain });
  LAYOUT.set(shifted, { key: shifted, code, keyCode, text: shifted });
}
LAYOUT.set(" ", NAMED.Space);
LAYOUT.set("\n", NAMED.Enter);
LAYOUT.set("\r", NAMED.Enter);
LAYOUT.set("\t", NAMED.Tab);

/** The key that types `ch` on a US keyboard, or null (then the character is inserted as text). */
export function keyForChar(ch) {
  return LAYOUT.get(ch) ?? null;
}

/**
 * Parse "Enter", "a", "Control+Shift+ArrowLeft", "Control++" into `{modifiers:[...], key}`.
 * Throws invalid_params for anything else.
 */
export function parseChord(spec) {
  if (typeof spec !== "string" || !spec) {
    throw new TPError(Codes.INVALID_PARAMS, "'key' must be a key name such as Enter or Control+a.", { param: "key" });
  }
  let parts;
  if (spec.length > 1 && spec.endsWith("++")) parts = [...spec.slice(0, -2).split("+"), "+"];
  else if (spec === "+") parts = ["+"];
  else parts = spec.split("+");
  const name = parts.pop();
  const modifiers = [];
  for (const part of parts) {
    const mod = MODIFIERS[part.toLowerCase()];
    if (!mod) throw unknownKey(spec, `'${part}' is not a modifier (Control, Shift, Alt, Meta)`);
    if (!modifiers.includes(mod)) modifiers.push(mod);
  }
  let key = NAMED[name] ?? NAMED_LOWER.get(name.toLowerCase());
  if (!key && [...name].length === 1) {
    key = LAYOUT.get(name) ?? { key: name, code: "", keyCode: 0, text: name };
    if (modifiers.includes(MODIFIERS.shift) && /^[a-z]$/.test(name)) key = LAYOUT.get(name.toUpperCase());
  }
  if (!key) throw unknownKey(spec, `'${name}' is not a key Tabpilot knows`);
  return { modifiers, key };
}

function unknownKey(spec, why) {
  return new TPError(
    Codes.INVALID_PARAMS,
    `Cannot press '${spec}': ${why}. Keys: ${Object.keys(NAMED).join(", ")} or one character, with optional Control+, Shift+, Alt+, Meta+.`,
    { param: "key" },
  );
}

function event(type, k, modifiers, text) {
  const e = { type, modifiers, key: k.key, code: k.code, windowsVirtualKeyCode: k.keyCode, nativeVirtualKeyCode: k.keyCode };
  if (k.location) e.location = k.location;
  if (text) {
    e.text = text;
    e.unmodifiedText = text;
  }
  return e;
}

/**
 * The Input.dispatchKeyEvent params for pressing `chord`: modifiers down, the key down and up,
 * modifiers up. Text is typed only when no modifier other than Shift is held.
 */
export function chordEvents({ modifiers, key }) {
  const events = [];
  let bits = 0;
  for (const mod of modifiers) {
    bits |= mod.bit;
    events.push(event("rawKeyDown", mod, bits));
  }
  const text = bits & ~SHIFT ? "" : key.text;
  events.push(event(text ? "keyDown" : "rawKeyDown", key, bits, text));
  events.push(event("keyUp", key, bits));
  for (const mod of [...modifiers].reverse()) {
    bits &= ~mod.bit;
    events.push(event("keyUp", mod, bits));
  }
  return events;
}
