// @ts-check
// Regular expressions an agent sends (an assert `pattern`, a `/regex/` URL of wait_for or a route) and
// the URL globs built on them, matched in time linear in the text: never with the browser's RegExp.
//
// Why not RegExp with a guard: V8's RegExp backtracks, so `^([\s\S]*e){14}QQQ$` on a page's text or
// `.*a.*a…Z` on a long URL runs for hours and freezes the page or the whole service worker (issue 18).
// Refusing "nested quantifiers" does not make backtracking safe (`\s*\s*\s*…x` is polynomial with no
// nesting, `(a|a)*` exponential), and a worker with a time budget is not available everywhere a
// pattern runs (a content script, the service worker). So the pattern is parsed here and run as a
// Thompson NFA: every position of the text is looked at once against at most one copy of each
// instruction, O(text × pattern), whatever the pattern. The grammar is JavaScript's (the native
// parser checks the syntax first, so errors read as the browser's); what cannot be matched that way
// is refused with a sentence: backreferences, lookahead/lookbehind, \p{…}, the `v` flag, modifiers.
// Sizes are bounded too: the pattern's length, its program once `{n,m}` is counted out, and the work
// of one test (a huge text × a big pattern is refused rather than run for seconds).
//
// Loaded as a classic content script (manifest order, before checks.js) and imported for its effect
// by the service worker (background/url_patterns.js) and node tests: it only sets a global.
(() => {
  if (globalThis.__tabpilotRegex) return;

  const MAX_SOURCE = 2048; // as the app's limit of a URL pattern (engine/browser_state/routes.py MAX_PATTERN)
  const MAX_PROGRAM = 5000;
  const MAX_DEPTH = 100; // groups inside groups (the parser and the compiler recurse once per level)
  /** Thread steps one test may take: ~50 ms of work; a text this long × a pattern this big is refused. */
  const MAX_STEPS = 20_000_000;

  class RegexRefused extends Error {
    /** @param {string} message */
    constructor(message) {
      super(message);
      this.name = "RegexRefused";
    }
  }

  const isLineTerm = (c) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
  const isDigit = (c) => c >= 0x30 && c <= 0x39;
  const isWord = (c) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
  const SPACES = [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff];
  const isSpace = (c) => SPACES.includes(c) || (c >= 0x2000 && c <= 0x200a);

  /** A set of code points: ranges [lo, hi] and class predicates, maybe negated. */
  class CharSet {
    constructor() {
      /** @type {number[][]} */
      this.ranges = [];
      /** @type {((c: number) => boolean)[]} */
      this.preds = [];
      this.negated = false;
    }
    /** Whether `c` is in the set, negation aside. @param {number} c */
    contains(c) {
      for (const [lo, hi] of this.ranges) if (c >= lo && c <= hi) return true;
      return this.preds.some((p) => p(c));
    }
    /** @param {number} c */
    has(c) {
      return this.contains(c) !== this.negated;
    }
  }

  const one = (code) => {
    const s = new CharSet();
    s.ranges.push([code, code]);
    return s;
  };
  const ofPred = (pred, negated = false) => {
    const s = new CharSet();
    s.preds.push(pred);
    s.negated = negated;
    return s;
  };
  const CLASS_ESCAPES = {
    d: () => ofPred(isDigit),
    D: () => ofPred(isDigit, true),
    w: () => ofPred(isWord),
    W: () => ofPred(isWord, true),
    s: () => ofPred(isSpace),
    S: () => ofPred(isSpace, true),
  };
  const CONTROL = { f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b };

  const FORMS = new Map();
  /** The case-folded forms of a code point, as `i` compares them (remembered: texts repeat letters). */
  function caseForms(c) {
    let forms = FORMS.get(c);
    if (!forms) {
      forms = caseFormsOf(c);
      if (FORMS.size < 4096) FORMS.set(c, forms);
    }
    return forms;
  }

  function caseFormsOf(c) {
    const ch = String.fromCodePoint(c);
    const out = [c];
    for (const f of [ch.toLowerCase(), ch.toUpperCase()]) {
      const cp = f.codePointAt(0);
      if (cp !== undefined && String.fromCodePoint(cp) === f && !out.includes(cp)) out.push(cp);
    }
    return out;
  }

  /**
   * Parses `source` (already accepted by the native RegExp with the same flags) into a tree:
   * {t: "set", set} | {t: "seq", items} | {t: "alt", items} | {t: "rep", node, min, max} | {t: "assert", kind}.
   */
  function parse(source, unicode) {
    let i = 0;
    let depth = 0;
    const peek = () => source[i];
    const eat = (s) => (source.startsWith(s, i) ? ((i += s.length), true) : false);
    const refuse = (what) => {
      throw new RegexRefused(`${what} cannot be matched in linear time and is not supported in Tabpilot's patterns.`);
    };
    const codeAt = () => {
      const cp = unicode ? /** @type {number} */ (source.codePointAt(i)) : source.charCodeAt(i);
      i += cp > 0xffff ? 2 : 1;
      return cp;
    };

    const hex = (n) => {
      const digits = source.slice(i, i + n);
      if (digits.length === n && /^[0-9a-fA-F]+$/.test(digits)) {
        i += n;
        return parseInt(digits, 16);
      }
      return -1;
    };

    /** After a `\`: a CharSet (class escape) or a code point; inClass changes `b` and `-`. */
    function escape(inClass) {
      const c = source[i];
      if (c === undefined) refuse("A trailing backslash");
      if (c in CLASS_ESCAPES) {
        i++;
        return CLASS_ESCAPES[c]();
      }
      if (c in CONTROL) {
        i++;
        return CONTROL[c];
      }
      if (c === "b" && inClass) {
        i++;
        return 0x08;
      }
      if (c === "p" || c === "P") {
        if (unicode) refuse("A Unicode property escape (\\p{…})");
        i++;
        return c.charCodeAt(0);
      }
      if (c === "k" && (unicode || /\(\?<[^=!]/.test(source))) refuse("A backreference (\\k<name>)");
      if (c >= "1" && c <= "9") refuse("A backreference or octal escape (\\1…\\9)");
      if (c === "0") {
        i++;
        if (isDigit(source.charCodeAt(i))) refuse("An octal escape (\\0 followed by a digit)");
        return 0;
      }
      if (c === "c") {
        const letter = source[i + 1];
        if (letter && /[A-Za-z]/.test(letter)) {
          i += 2;
          return letter.charCodeAt(0) % 32;
        }
        return 0x5c; // `\c` without a letter is a backslash then `c` (Annex B)
      }
      if (c === "x") {
        i++;
        const v = hex(2);
        return v >= 0 ? v : 0x78;
      }
      if (c === "u") {
        i++;
        if (unicode && source[i] === "{") {
          const end = source.indexOf("}", i);
          const v = parseInt(source.slice(i + 1, end), 16);
          i = end + 1;
          return v;
        }
        const v = hex(4);
        if (v < 0) return 0x75;
        if (unicode && v >= 0xd800 && v <= 0xdbff && source.startsWith("\\u", i)) {
          const save = i;
          i += 2;
          const lo = hex(4);
          if (lo >= 0xdc00 && lo <= 0xdfff) return (v - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000;
          i = save;
        }
        return v;
      }
      return codeAt(); // an identity escape: the character itself
    }

    function charClass() {
      const set = new CharSet();
      if (eat("^")) set.negated = true;
      /** One class atom: a code point or a CharSet. */
      const atom = () => {
        if (eat("\\")) return escape(true);
        return codeAt();
      };
      while (i < source.length && peek() !== "]") {
        const from = atom();
        if (peek() === "-" && source[i + 1] !== "]" && i + 1 < source.length) {
          const save = i;
          i++;
          const to = atom();
          if (typeof from === "number" && typeof to === "number") {
            set.ranges.push([from, to]);
            continue;
          }
          i = save; // `\d-x` (Annex B): the `-` is itself
        }
        if (typeof from === "number") set.ranges.push([from, from]);
        else set.preds.push((c) => from.has(c));
      }
      eat("]");
      return set;
    }

    /** `{n}`, `{n,}` or `{n,m}` at i: [min, max] and i moved past it, or null (then `{` is itself). */
    function braces() {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 24));
      if (!m) return null;
      i += m[0].length;
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      if (min > MAX_PROGRAM || (max !== Infinity && max > MAX_PROGRAM)) throw tooLarge();
      return [min, max];
    }

    function disjunction() {
      const items = [alternative()];
      while (eat("|")) items.push(alternative());
      return items.length === 1 ? items[0] : { t: "alt", items };
    }

    function alternative() {
      const items = [];
      while (i < source.length && peek() !== "|" && peek() !== ")") {
        const node = term();
        if (node) items.push(node);
      }
      return { t: "seq", items };
    }

    function term() {
      if (eat("^")) return { t: "assert", kind: "^" };
      if (eat("$")) return { t: "assert", kind: "$" };
      if (eat("\\b")) return { t: "assert", kind: "b" };
      if (eat("\\B")) return { t: "assert", kind: "B" };
      if (source.startsWith("(?=", i) || source.startsWith("(?!", i) || source.startsWith("(?<=", i) || source.startsWith("(?<!", i)) {
        refuse("A lookahead or lookbehind ((?=…), (?!…), (?<=…), (?<!…))");
      }
      let node;
      if (eat("(")) {
        if (++depth > MAX_DEPTH) throw new RegexRefused(`The pattern nests groups more than ${MAX_DEPTH} deep.`);
        if (eat("?:")) node = disjunction();
        else if (source.startsWith("?<", i)) {
          i = source.indexOf(">", i) + 1;
          node = disjunction();
        } else if (peek() === "?") refuse("A group with modifiers ((?i:…))");
        else node = disjunction();
        depth--;
        eat(")");
      } else if (eat("[")) node = { t: "set", set: charClass() };
      else if (eat(".")) node = { t: "dot" };
      else if (eat("\\")) {
        const e = escape(false);
        node = { t: "set", set: typeof e === "number" ? one(e) : e };
      } else node = { t: "set", set: one(codeAt()) }; // `{`, `}` and `]` too when they are no syntax (Annex B)
      // quantifiers
      for (;;) {
        let q = null;
        if (eat("*")) q = [0, Infinity];
        else if (eat("+")) q = [1, Infinity];
        else if (eat("?")) q = [0, 1];
        else if (peek() === "{") q = braces();
        if (!q) break;
        eat("?"); // lazy or greedy: the same for whether it matches
        node = { t: "rep", node, min: q[0], max: q[1] };
      }
      return node;
    }

    const tree = disjunction();
    return tree;
  }

  // Instructions: [op, a, b]: CHAR (a: test), SPLIT (a, b: next pcs), JMP (a), ASSERT (a: kind), MATCH.
  const CHAR = 0;
  const SPLIT = 1;
  const JMP = 2;
  const ASSERT = 3;
  const MATCH = 4;

  const tooLarge = () =>
    new RegexRefused(`The pattern is too large once its repetitions are counted out (over ${MAX_PROGRAM} steps); make it shorter or its {n,m} smaller.`);

  function compile(tree, flags) {
    /** @type {any[][]} */
    const prog = [];
    const emit = (ins) => {
      if (prog.length >= MAX_PROGRAM) throw tooLarge();
      prog.push(ins);
      return prog.length - 1;
    };
    const fold = flags.includes("i");
    const dotAll = flags.includes("s");
    // With `i`, a character is in a set when one of its case forms is; a negated set is negated after that.
    const test = (set) => (fold ? (c) => caseForms(c).some((f) => set.contains(f)) !== set.negated : (c) => set.has(c));
    const dot = dotAll ? () => true : (c) => !isLineTerm(c);

    const gen = (node) => {
      switch (node.t) {
        case "set":
          // What one test of this set costs: a range compare each, about 16 for a class predicate (\s looks
          // through a list), times the case forms under `i`. `[\s\s…]` is one instruction that costs
          // thousands: counted as one, it slipped past the work bound (a 1,000-\s class froze a tab).
          emit([CHAR, test(node.set), Math.max(1, node.set.ranges.length + 16 * node.set.preds.length) * (fold ? 4 : 1)]);
          return;
        case "dot":
          emit([CHAR, dot]);
          return;
        case "assert":
          emit([ASSERT, node.kind]);
          return;
        case "seq":
          for (const item of node.items) gen(item);
          return;
        case "alt": {
          const jumps = [];
          for (let k = 0; k < node.items.length; k++) {
            if (k < node.items.length - 1) {
              const split = emit([SPLIT, 0, 0]);
              prog[split][1] = prog.length;
              gen(node.items[k]);
              jumps.push(emit([JMP, 0]));
              prog[split][2] = prog.length;
            } else gen(node.items[k]);
          }
          for (const j of jumps) prog[j][1] = prog.length;
          return;
        }
        case "rep": {
          for (let k = 0; k < node.min; k++) gen(node.node);
          if (node.max === Infinity) {
            const split = emit([SPLIT, 0, 0]);
            prog[split][1] = prog.length;
            gen(node.node);
            emit([JMP, split]);
            prog[split][2] = prog.length;
          } else {
            const splits = [];
            for (let k = node.min; k < node.max; k++) {
              const split = emit([SPLIT, 0, 0]);
              prog[split][1] = prog.length;
              splits.push(split);
              gen(node.node);
            }
            for (const s of splits) prog[s][2] = prog.length;
          }
          return;
        }
      }
    };
    gen(tree);
    emit([MATCH]);
    return prog;
  }

  /**
   * A compiled pattern: `test(text)` tells whether it matches anywhere in `text`, as RegExp.test would
   * (flags g and y are ignored: no state between calls). Throws RegexRefused for a pattern outside
   * the supported grammar, SyntaxError for one the browser does not accept either.
   * `maxSource`: a glob made into a regex is longer than the glob; its program size bounds it instead.
   * @param {string} source @param {string} [flags] @param {number} [maxSource]
   * @returns {{source: string, flags: string, test: (text: string) => boolean}}
   */
  function compileRegex(source, flags = "", maxSource = MAX_SOURCE) {
    if (source.length > maxSource) throw new RegexRefused(`The pattern has ${source.length} characters; at most ${MAX_SOURCE}.`);
    if (flags.includes("v")) throw new RegexRefused("The 'v' flag is not supported in Tabpilot's patterns (use 'u').");
    const native = new RegExp(source, flags); // the syntax check, with the browser's own message; never run
    const unicode = flags.includes("u");
    const multiline = flags.includes("m");
    const prog = compile(parse(source, unicode), flags);
    // The work of one step over the whole program: a set's instruction counts what its test costs.
    const size = prog.reduce((sum, ins) => sum + (ins[0] === CHAR && typeof ins[2] === "number" ? ins[2] : 1), 0);

    const test = (text) => {
      const units = String(text);
      /** @type {number[]} */
      const codes = [];
      for (let k = 0; k < units.length; ) {
        const cp = unicode ? /** @type {number} */ (units.codePointAt(k)) : units.charCodeAt(k);
        codes.push(cp);
        k += unicode && cp > 0xffff ? 2 : 1;
      }
      const n = codes.length;
      if ((n + 1) * size > MAX_STEPS) {
        throw new RegexRefused(`The pattern is too large for a text of ${n} characters (a test may take ${MAX_STEPS} steps); make the pattern or the text smaller.`);
      }
      const seen = new Int32Array(size).fill(-1);
      let current = [];
      let next = [];
      const stack = [];
      /** Adds pc and what it reaches without reading at position `at`; true when it reaches MATCH. */
      const add = (list, pc0, at) => {
        stack.push(pc0);
        while (stack.length) {
          const pc = stack.pop();
          if (seen[pc] === at) continue;
          seen[pc] = at;
          const ins = prog[pc];
          switch (ins[0]) {
            case MATCH:
              stack.length = 0;
              return true;
            case JMP:
              stack.push(ins[1]);
              break;
            case SPLIT:
              stack.push(ins[2], ins[1]);
              break;
            case ASSERT:
              if (holds(ins[1], at)) stack.push(pc + 1);
              break;
            default:
              list.push(pc);
          }
        }
        return false;
      };
      const holds = (kind, at) => {
        const before = at > 0 ? codes[at - 1] : -1;
        const after = at < n ? codes[at] : -1;
        if (kind === "^") return at === 0 || (multiline && isLineTerm(before));
        if (kind === "$") return at === n || (multiline && isLineTerm(after));
        const boundary = (before >= 0 && isWord(before)) !== (after >= 0 && isWord(after));
        return kind === "b" ? boundary : !boundary;
      };
      for (let at = 0; at <= n; at++) {
        if (add(current, 0, at)) return true;
        if (at === n) break;
        const c = codes[at];
        for (const pc of current) {
          if (prog[pc][1](c) && add(next, pc + 1, at + 1)) return true;
        }
        [current, next] = [next, current];
        next.length = 0;
      }
      return false;
    };
    return { source: native.source, flags: native.flags, test };
  }

  globalThis.__tabpilotRegex = { compileRegex, RegexRefused, MAX_SOURCE };
})();
