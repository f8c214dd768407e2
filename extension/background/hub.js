// @ts-check
// One browser listener per event, added on first use and kept; the watches of single actions subscribe
// and unsubscribe here, in the worker. Adding or removing a listener of a chrome.* event is a message to
// the browser each; an action's settle watches eight events, and doing that per action cost a click
// about 2 ms (bench/bench_hops.py).

/** @type {Map<object, Set<(...args: any[]) => void>>} */
const subscribers = new Map();

/**
 * Call `fn` with each of `event`'s dispatches until the returned function is called.
 * `filter`: the listener filter some events take (webRequest's urls); the same for every subscriber.
 * @param {{addListener: (cb: (...args: any[]) => void, ...extra: any[]) => void}} event
 * @param {(...args: any[]) => void} fn @param {object} [filter]
 * @returns {() => void}
 */
export function subscribe(event, fn, filter = undefined) {
  let subs = subscribers.get(event);
  if (!subs) {
    const mine = new Set();
    subs = mine;
    subscribers.set(event, mine);
    /** @type {(...args: any[]) => undefined} */
    const dispatch = (...args) => {
      for (const f of [...mine]) f(...args);
    };
    if (filter) event.addListener(dispatch, filter);
    else event.addListener(dispatch);
  }
  const set = subs;
  set.add(fn);
  return () => set.delete(fn);
}
