// @ts-check
// Hop timing, only for a request the app marks `trace: true` (its TABPILOT_TRACE; bench/bench_hops.py):
// wall-clock marks as the request goes through the service worker and its CDP and page calls, sent
// back with the answer. Otherwise nothing is recorded. Requests are marked one at a time: a bench
// sends them one after another, and marks of overlapping requests would only be mixed, never wrong.

/** @type {[string, number][] | null} */
let current = null;

export const nowMs = () => performance.timeOrigin + performance.now();

export function begin() {
  current = [["sw_recv", nowMs()]];
}

/** @param {string} name */
export function mark(name) {
  if (current) current.push([name, nowMs()]);
}

export function end() {
  const marks = current;
  current = null;
  if (marks) marks.push(["sw_send", nowMs()]);
  return marks;
}
