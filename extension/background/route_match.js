// @ts-check
// Which URLs a mocked or blocked route answers: pure, so node tests cover it (test/route_match.test.mjs).
//
// A route's `url` is a glob with Playwright's meaning (after its globToRegexPattern in
// packages/isomorphic/urlMatch.ts, Apache-2.0): `*` is any run of characters but `/`, `**` any run at
// all, `{a,b}` either, `\` escapes, every other character (`?` too) stands for itself; the glob must
// match the whole URL. A glob starting with one `/` is a path (`/api/items*`): it matches on any site.
// Written `/source/flags` it is a JavaScript regular expression instead, which may match anywhere in the URL.
// Both run on the linear-time matcher (patterns.js), never on RegExp: a route tests every request's
// URL in the service worker, and a backtracking pattern there would freeze every tab (issue 18).

import { linearGlob, linearRegex } from "./patterns.js";

const ESCAPED = new Set(["$", "^", "+", ".", "*", "(", ")", "|", "\\", "?", "{", "}", "[", "]"]);
const REGEX_LITERAL = /^\/(.+)\/([dgimsuvy]*)$/s;
const ANY_SITE = "*://*";

/** The glob as a regular expression's source, anchored at both ends. @param {string} glob */
export function globSource(glob) {
  const tokens = ["^"];
  let inGroup = false;
  for (let i = 0; i < glob.length; ++i) {
    const c = glob[i];
    if (c === "\\" && i + 1 < glob.length) {
      const char = glob[++i];
      tokens.push(ESCAPED.has(char) ? "\\" + char : char);
      continue;
    }
    if (c === "*") {
      const before = glob[i - 1];
      let stars = 1;
      while (glob[i + 1] === "*") {
        stars++;
        i++;
      }
      if (stars > 1) {
        if (glob[i + 1] === "/") {
          tokens.push(before === "/" ? "((.+/)|)" : "(.*/)");
          ++i;
        } else tokens.push("(.*)");
      } else tokens.push("([^/]*)");
      continue;
    }
    if (c === "{") {
      if (inGroup) throw new Error(`nested '{' in the glob ${JSON.stringify(glob)}`);
      inGroup = true;
      tokens.push("(");
    } else if (c === "}") {
      if (!inGroup) throw new Error(`unmatched '}' in the glob ${JSON.stringify(glob)}`);
      inGroup = false;
      tokens.push(")");
    } else if (c === ",") tokens.push(inGroup ? "|" : "\\,");
    else tokens.push(ESCAPED.has(c) ? "\\" + c : c);
  }
  if (inGroup) throw new Error(`unmatched '{' in the glob ${JSON.stringify(glob)}`);
  tokens.push("$");
  return tokens.join("");
}

/** Is `pattern` written as a regular expression (`/source/flags`)? @param {string} pattern */
export function isRegexLiteral(pattern) {
  return REGEX_LITERAL.test(pattern) && pattern.length > 2;
}

/**
 * `pattern` as a test of a URL; throws Error with a readable message when it is no valid glob or regex.
 * @param {string} pattern @returns {(url: string) => boolean}
 */
export function matcher(pattern) {
  const literal = REGEX_LITERAL.exec(pattern);
  if (literal) {
    // No state between tests (`g` and `y` are dropped): a route must answer the same every time.
    return tested(linearRegex(literal[1], literal[2]));
  }
  const glob = isPathGlob(pattern) ? ANY_SITE + pattern : pattern;
  return tested(linearGlob(globSource(glob)));
}

/** A URL too long for the pattern's work budget (a huge data: URL) is one the route does not answer. */
const tested = (re) => (url) => {
  try {
    return re.test(url);
  } catch {
    return false;
  }
};

/** `/api/items*`: a path, on any site (any scheme, any host and port, nothing else before it). @param {string} pattern */
const isPathGlob = (pattern) => pattern.startsWith("/") && !pattern.startsWith("//");

/**
 * The Fetch.enable pattern that lets through at least every URL `pattern` matches, so the browser pauses
 * only requests a route might answer (Fetch's own wildcards: `*` any run, `?` one character, `\` escapes).
 * @param {string} pattern
 */
export function fetchPattern(pattern) {
  if (isRegexLiteral(pattern)) return "*";
  let out = isPathGlob(pattern) ? ANY_SITE : "";
  let inGroup = false;
  for (let i = 0; i < pattern.length; ++i) {
    const c = pattern[i];
    if (c === "\\" && i + 1 < pattern.length) {
      out += escapeFetch(pattern[++i]);
    } else if (c === "*" || (c === "{" && !inGroup)) {
      inGroup = inGroup || c === "{";
      if (!out.endsWith("*") || out.endsWith("\\*")) out += "*";
    } else if (inGroup) {
      if (c === "}") inGroup = false;
    } else out += escapeFetch(c);
  }
  return out;
}

/** @param {string} c */
const escapeFetch = (c) => (c === "*" || c === "?" || c === "\\" ? "\\" + c : c);

/** The Fetch.enable patterns for a set of routes' URL patterns: one `*` when any needs it. @param {string[]} patterns */
export function fetchPatterns(patterns) {
  const wanted = [...new Set(patterns.map(fetchPattern))];
  return (wanted.includes("*") ? ["*"] : wanted).map((urlPattern) => ({ urlPattern, requestStage: "Request" }));
}
