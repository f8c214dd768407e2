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
 * @param {{addListener: (cb: (...args: any[]) => any, ...extra: any[]) => void}} event
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

/**
 * A test for webNavigation events of `tabId`'s top frame from now on. A listener here is always there,
 * so the worker may still hand over an event of a load that happened before a watch began (queued while
 * it subscribed); a watch that took it for its own would end early. webNavigation's timeStamp and
 * Date.now() are one clock.
 * @param {number} tabId @returns {(d: {tabId: number, frameId: number, timeStamp?: number}) => boolean}
 */
export function topFrameFromNow(tabId) {
  const since = Date.now() - 1; // the event's timeStamp may be rounded down
  return (d) => d.tabId === tabId && d.frameId === 0 && !(typeof d.timeStamp === "number" && d.timeStamp < since);
}
