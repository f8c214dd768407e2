// @ts-check
// One after another: calls of an async handler run in the order they came, each after the last one's
// promise settled (a failure does not stop the ones behind it).

/**
 * @template {unknown[]} A
 * @param {(...args: A) => unknown} handler
 * @returns {(...args: A) => Promise<void>}
 */
export function inOrder(handler) {
  /** @type {Promise<unknown>} */
  let last = Promise.resolve();
  return (...args) => {
    const next = last.then(() => handler(...args)).catch(() => {});
    last = next;
    return next.then(() => {});
  };
}
