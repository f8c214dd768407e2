// @ts-check
// When connection.js tries the app again after the socket closed: quickly at first, backing off to
// every 5 s while the app is away; every 15 s when the app refused this browser, as a person has to
// act (type a code, make room) before another try can succeed.

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 5000];
const REFUSED_BACKOFF_MS = 15_000;

/** Link statuses in which the app answered but will not take this browser yet. */
const REFUSALS = new Set(["refused", "unpaired", "waiting"]);

/** @param {string} status */
export function isRefusal(status) {
  return REFUSALS.has(status);
}

/**
 * How long to wait before the next try: `attempt` counts the tries since the last success (0 first).
 * @param {number} attempt @param {boolean} refused
 */
export function retryDelay(attempt, refused) {
  return refused ? REFUSED_BACKOFF_MS : BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)];
}
