// @ts-check
// The linear-time matcher of agent-supplied regular expressions and globs (content/linear_regex.js,
// shared with the page, where it is a classic content script): imported here for its effect, a global.
import "../content/linear_regex.js";

/** @type {TabpilotRegex} */
const linear = globalThis.__tabpilotRegex;
export const { compileRegex, RegexRefused } = linear;

/**
 * `pattern` as a test of a text, matched without backtracking. Throws RegexRefused or SyntaxError.
 * @param {string} source @param {string} [flags] @param {number} [maxSource]
 */
export function linearRegex(source, flags = "", maxSource) {
  return compileRegex(source, flags.replace(/[gyd]/g, ""), maxSource);
}

/** A glob's regex source (anchored, from the glob's own translation) as a linear-time test. @param {string} source */
export const linearGlob = (source) => compileRegex(source, "", Infinity);
