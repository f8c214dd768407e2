// @ts-check
// Hop timing, only for a request the app marks `trace: true` (its TABPILOT_TRACE; bench/bench_hops.py):
// wall-clock marks as the request goes through the service worker and its CDP and page calls, sent
// back with the answer. Otherwise nothing is recorded. A mark goes to every traced request open at
// the time: a service worker has no per-request context to tell them apart, and requests that overlap
// (a click and the element look the app asks for alongside it) then each carry the other's marks too,
// in time order, rather than one of them losing its own.

/** @typedef {[string, number][]} Marks */

/** @type {Set<Marks>} */
const open = new Set();

export const nowMs = () => performance.timeOrigin + performance.now();

/** @returns {Marks} */
export function begin() {
  /** @type {Marks} */
  const marks = [["sw_recv", nowMs()]];
  open.add(marks);
  return marks;
}

/** @param {string} name */
export function mark(name) {
  if (open.size === 0) return;
  const at = nowMs();
  for (const marks of open) marks.push([name, at]);
}

/** @param {Marks} marks */
export function end(marks) {
  open.delete(marks);
  marks.push(["sw_send", nowMs()]);
  return marks;
}
