// @ts-check
// observe assert and observe injection_check, inside the page (isolated world).
// page.assert: every check the app validated, looked at in one go; with `wait_ms`, looked at again on
// every change of the page until they all pass (content/elements.js's waitFor) or the time is up.
// page.injection_scan: the page's text where an AI reader meets it — visible and hidden text (with how
// it is hidden), comments, meta tags, data-* and alt/title/aria attributes, noscript, JSON-LD — as
// segments for the app to score (engine/safety/injection.py). Redacted elements are never read.
(() => {
  const tp = globalThis.__tabpilot;
  if (!tp?.ops || tp.ops["page.assert"]) return;
  const { PageError, REDACTED, clean, cut, queryAll, visible, redaction, isRedacted, cssPath, waitFor } = tp.lib;

  const MAX_FOUND = 500;

  // -- page.assert ----------------------------------------------------------------------------------

  const OPS = { eq: "==", ne: "!=", gt: ">", gte: ">=", lt: "<", lte: "<=" };
  const COMPARE = {
    eq: (a, b) => a === b,
    ne: (a, b) => a !== b,
    gt: (a, b) => a > b,
    gte: (a, b) => a >= b,
    lt: (a, b) => a < b,
    lte: (a, b) => a <= b,
  };

  const quote = (s) => `'${cut(String(s), 80)}'`;

  /** The check's matcher as {test(value), words}: `expected` (exact), `contains` or `pattern` (a regex). */
  function matcherOf(check, index) {
    const fold = check.ignore_case ? (s) => s.toLowerCase() : (s) => s;
    const norm = check.type === "text" ? (s) => fold(clean(s)) : (s) => fold(s);
    if (typeof check.expected === "string") {
      const want = norm(check.expected);
      return { test: (v) => norm(v) === want, words: `equals ${quote(check.expected)}`, verb: "does not equal" };
    }
    if (typeof check.contains === "string") {
      const want = norm(check.contains);
      return { test: (v) => norm(v).includes(want), words: `contains ${quote(check.contains)}`, verb: "does not contain" };
    }
    if (typeof check.pattern === "string") {
      const literal = /^\/(.+)\/([a-z]*)$/s.exec(check.pattern);
      let source = literal ? literal[1] : check.pattern;
      let flags = literal ? literal[2] : "";
      if (check.ignore_case && !flags.includes("i")) flags += "i";
      flags = flags.replace(/[gyd]/g, ""); // no state between looks
      // Matched in linear time (content/linear_regex.js), never by RegExp: a backtracking pattern on
      // the page's text froze the tab, and every later call on it (issue 18).
      const bad = (err) =>
        new PageError("invalid_params", `checks[${index}]: 'pattern' ${err instanceof SyntaxError ? "is not a valid regular expression" : "is refused"} (${err.message}).`, {
          param: "checks",
          index,
        });
      let re;
      try {
        re = globalThis.__tabpilotRegex.compileRegex(source, flags);
      } catch (err) {
        throw bad(err);
      }
      source = re.source;
      const words = `matches /${source}/${re.flags}`;
      const test = (v) => {
        try {
          return re.test(v);
        } catch (err) {
          throw bad(err); // a text too long for this pattern's work budget
        }
      };
      return { test, words, verb: "does not match" };
    }
    return null;
  }

  function isDisabled(el) {
    return el.matches(":disabled") || !!el.closest('[aria-disabled="true"]');
  }

  /** "checked", "unchecked", "mixed", or null: not something that is checked. */
  function checkedState(el) {
    if (el.localName === "input" && /^(checkbox|radio)$/i.test(el.type)) {
      if (el.indeterminate) return "mixed";
      return el.checked ? "checked" : "unchecked";
    }
    const aria = el.getAttribute("aria-checked") ?? el.getAttribute("aria-pressed") ?? el.getAttribute("aria-selected");
    if (aria === "true") return "checked";
    if (aria === "false") return "unchecked";
    if (aria === "mixed") return "mixed";
    return null;
  }

  const STATE = {
    visible: (el) => (visible(el) ? "visible" : "hidden"),
    hidden: (el) => (visible(el) ? "visible" : "hidden"),
    enabled: (el) => (isDisabled(el) ? "disabled" : "enabled"),
    disabled: (el) => (isDisabled(el) ? "disabled" : "enabled"),
    checked: (el) => checkedState(el) ?? "not checkable",
    unchecked: (el) => checkedState(el) ?? "not checkable",
  };

  /** The elements a check's selector names; a ref that left the page reads as none, with why. */
  function elementsOf(check, index) {
    try {
      return { els: queryAll(check.selector, `checks[${index}].selector`), stale: "" };
    } catch (err) {
      if (err instanceof PageError && err.code === "stale_ref") return { els: [], stale: err.message };
      if (err instanceof PageError) throw new PageError(err.code, `checks[${index}]: ${err.message}`, { param: "checks", index });
      throw err;
    }
  }

  function fieldValue(el) {
    if ("value" in el && typeof el.value === "string" && /^(input|textarea|select|option|button|output)$/.test(el.localName)) return el.value;
    return null;
  }

  /** One look at one check: its result. */
  function evaluate(check, index, matcher, red) {
    const base = { index, type: check.type };
    if (check.selector !== undefined) base.selector = check.selector;
    if (check.type === "attribute") base.name = check.name;
    const pass = (expected, found) => ({ ...base, pass: true, expected, found });
    const fail = (expected, found, reason) => ({ ...base, pass: false, expected, found, reason });

    if (check.type === "url" || check.type === "title") {
      const value = check.type === "url" ? location.href : document.title;
      return matcher.test(value) ? pass(matcher.words, value) : fail(matcher.words, value, `the ${check.type} ${matcher.verb} ${matcher.words.replace(/^\w+ /, "")}`);
    }
    const { els, stale } = elementsOf(check, index);
    if (check.type === "count") {
      const op = check.op ?? "eq";
      const words = `${OPS[op]} ${check.expected}`;
      return COMPARE[op](els.length, check.expected) ? pass(words, els.length) : fail(words, els.length, `${els.length} elements match, not ${words}`);
    }
    const el = els[0];
    const none = stale || `no element matches ${quote(check.selector)}`;
    if (check.type in STATE) {
      if (!el) return check.type === "hidden" ? pass("hidden", null) : fail(check.type, null, none);
      const state = STATE[check.type](el);
      return state === check.type ? pass(check.type, state) : fail(check.type, state, `it is ${state}`);
    }
    const words = matcher ? matcher.words : "present";
    if (!el) return fail(words, null, none);
    let value;
    if (check.type === "text") value = red.any && isRedacted(el, red) ? REDACTED : clean(el.textContent);
    else if (check.type === "value") {
      value = fieldValue(el);
      if (value === null) return fail(words, null, `<${el.localName}> has no value (a text check reads its text)`);
      if (red.any && isRedacted(el, red)) value = REDACTED;
    } else {
      value = el.getAttribute(check.name);
      if (value !== null && check.name.toLowerCase() === "value" && red.any && isRedacted(el, red)) value = REDACTED;
      if (!matcher) return value !== null ? pass(words, cut(value, MAX_FOUND)) : fail(words, null, `it has no ${check.name} attribute`);
      if (value === null) return fail(words, null, `it has no ${check.name} attribute`);
    }
    // What was asked for is not echoed either: it may be the secret itself.
    if (value === REDACTED) return fail(`${words.split(" ")[0]} ${REDACTED}`, REDACTED, "it is redacted (a password or a redact_selectors match): not compared");
    const shown = cut(value, MAX_FOUND);
    return matcher.test(value) ? pass(words, shown) : fail(words, shown, `the ${check.type} ${matcher.verb} ${words.replace(/^\w+ /, "")}`);
  }

  async function pageAssert(p) {
    const checks = Array.isArray(p.checks) ? p.checks : [];
    const red = redaction(p.redact);
    const matchers = checks.map((c, i) => matcherOf(c, i));
    const look = () => {
      const results = checks.map((c, i) => evaluate(c, i, matchers[i], red));
      return { ok: results.every((r) => r.pass), results };
    };
    const waitMs = Math.max(0, Math.min(Number(p.wait_ms) || 0, Number(p.timeout_ms) || 0));
    const seen = await waitFor(look, waitMs);
    const out = { url: location.href, title: document.title, results: seen.results };
    if (seen.timedOut && waitMs > 0) out.timed_out = true;
    return out;
  }

  // -- page.injection_scan --------------------------------------------------------------------------

  const MAX_SEGMENTS = 3000;
  const MAX_CHARS = 400_000;
  const MAX_SEGMENT_CHARS = 20_000;
  const MIN_ATTRIBUTE_CHARS = 8;
  const SKIPPED = new Set(["script", "style", "template", "textarea", "svg", "math", "iframe", "object"]);
  const CODE = "code, pre, kbd, samp, tt";
  const READ_ATTRIBUTES = ["alt", "title", "aria-label", "aria-description", "aria-roledescription", "placeholder"];

  /** [r, g, b, a] of a computed colour (rgb()/rgba() as getComputedStyle writes it). */
  function rgba(color) {
    const m = /rgba?\(([^)]+)\)/.exec(color || "");
    if (!m) return [0, 0, 0, 1];
    const parts = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return [parts[0] || 0, parts[1] || 0, parts[2] || 0, parts.length > 3 ? parts[3] : 1];
  }

  /** The colour behind `el`: the nearest ancestor's opaque-ish background (white at the top). */
  function backdrop(el) {
    for (let n = el; n; n = n.parentElement) {
      const bg = rgba(getComputedStyle(n).backgroundColor);
      if (bg[3] > 0.5) return bg;
    }
    return [255, 255, 255, 1];
  }

  function makeScanner() {
    const hiddenCache = new Map();
    const clipCache = new Map();
    const docWidth = Math.max(document.documentElement.scrollWidth, window.innerWidth);

    /** An ancestor box of (almost) no size that clips what overflows it: "clipped", else "". */
    function clippedBy(el) {
      if (!el || el === document.body || el === document.documentElement) return "";
      if (clipCache.has(el)) return clipCache.get(el);
      let why = "";
      const cs = getComputedStyle(el);
      const r = el.getBoundingClientRect();
      const clips = cs.overflow !== "visible" || cs.clip !== "auto" || (cs.clipPath && cs.clipPath !== "none");
      if (clips && (r.width <= 1 || r.height <= 1)) why = "clipped";
      else if (cs.clipPath && /inset\(\s*(50%|100%)/.test(cs.clipPath)) why = "clipped";
      else why = clippedBy(el.parentElement ?? /** @type {any} */ (el.getRootNode()).host);
      clipCache.set(el, why);
      return why;
    }

    /** How `el`'s own text is hidden from a person ("" when it is not). */
    function hiddenBy(el) {
      if (hiddenCache.has(el)) return hiddenCache.get(el);
      const cs = getComputedStyle(el);
      // Boxes of their own these have none: their holder says whether a person sees them.
      const holder = /^(option|optgroup)$/.test(el.localName) ? el.closest("select") : cs.display === "contents" ? el.parentElement : null;
      if (holder) {
        const inherited = hiddenBy(holder);
        hiddenCache.set(el, inherited);
        return inherited;
      }
      let why = "";
      const shown = typeof el.checkVisibility !== "function" || el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
      if (!shown) {
        why = "display_none";
        const closedDetails = el.closest("details:not([open])");
        if (closedDetails && !el.closest("summary")) why = "collapsed";
        else if (cs.visibility === "hidden" || cs.visibility === "collapse") why = "visibility_hidden";
        else {
          for (let n = el; n; n = n.parentElement) {
            const s = getComputedStyle(n);
            if (s.display === "none") break;
            if (Number(s.opacity) === 0) {
              why = "transparent";
              break;
            }
          }
        }
      } else {
        const r = el.getBoundingClientRect();
        const left = r.left + window.scrollX;
        const color = rgba(cs.color);
        if (r.right + window.scrollX <= 0 || r.bottom + window.scrollY <= 0 || left >= docWidth) why = "offscreen";
        else if (r.width <= 1 || r.height <= 1) why = "zero_size";
        else if (clippedBy(el)) why = "clipped";
        else if (parseFloat(cs.fontSize) < 4) why = "tiny_text";
        else if (color[3] < 0.1) why = "transparent";
        else {
          const bg = backdrop(el);
          const distance = Math.abs(color[0] - bg[0]) + Math.abs(color[1] - bg[1]) + Math.abs(color[2] - bg[2]);
          if (distance < 24) why = "same_color";
          else if (el.closest('[aria-hidden="true"]')) why = "aria_hidden";
        }
      }
      hiddenCache.set(el, why);
      return why;
    }
    return { hiddenBy };
  }

  /** A JSON-LD block's string values, a line each (its keys and quotes are not words of the page). */
  function jsonStrings(source) {
    let doc;
    try {
      doc = JSON.parse(source);
    } catch {
      return source;
    }
    const out = [];
    const walk = (v) => {
      if (typeof v === "string") out.push(v);
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") Object.values(v).forEach(walk);
    };
    walk(doc);
    return out.join("\n");
  }

  /** The box a run of inline text belongs to: its nearest ancestor that is not laid out inline. */
  function blockOf(el) {
    for (let n = el; n; n = n.parentElement) {
      const display = getComputedStyle(n).display;
      if (!display.startsWith("inline") && display !== "contents" && display !== "none") return n;
      if (display === "none") return n; // hidden: the hidden element itself holds it
    }
    return el;
  }

  function injectionScan(p) {
    const red = redaction(p.redact);
    const { hiddenBy } = makeScanner();
    const segments = [];
    let chars = 0;
    let truncated = false;
    const add = (segment) => {
      const text = segment.text.replace(/[ \t\r\f\v]+/g, " ").replace(/\n\s*\n+/g, "\n").trim();
      if (!text) return;
      if (segments.length >= MAX_SEGMENTS || chars + text.length > MAX_CHARS) {
        truncated = true;
        return;
      }
      const kept = text.length > MAX_SEGMENT_CHARS ? text.slice(0, MAX_SEGMENT_CHARS) : text;
      chars += kept.length;
      segments.push({ ...segment, text: kept });
    };
    const redacted = (el) => red.any && isRedacted(el, red);

    // Text, grouped by the block it sits in and how it is hidden (a hidden span inside a visible
    // paragraph is its own segment); comments; attributes. Open shadow roots are walked too.
    /** @type {Map<Element, Map<string, {parts: string[], hidden: string, code: boolean, noscript: boolean}>>} */
    const blocks = new Map();
    /** @type {Node[]} */
    const roots = [document];
    for (let r = 0; r < roots.length; r++) {
      const walker = document.createTreeWalker(roots[r], NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT | NodeFilter.SHOW_COMMENT, {
        acceptNode: (node) =>
          node.nodeType === 1 && (SKIPPED.has(/** @type {Element} */ (node).localName) || redacted(node)) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
      });
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.nodeType === 8) {
          const parent = node.parentElement;
          add({ location: "comment", selector: parent ? cssPath(parent) : "html", text: /** @type {Comment} */ (node).data });
          continue;
        }
        if (node.nodeType === 1) {
          const el = /** @type {Element} */ (node);
          if (el.shadowRoot) roots.push(el.shadowRoot);
          for (const attr of el.attributes) {
            const name = attr.name.toLowerCase();
            const isData = name.startsWith("data-");
            if (!isData && !READ_ATTRIBUTES.includes(name)) continue;
            if (attr.value.trim().length < MIN_ATTRIBUTE_CHARS) continue;
            add({ location: isData ? "data_attribute" : "attribute", attribute: name, selector: cssPath(el), text: attr.value });
          }
          continue;
        }
        const text = /** @type {Text} */ (node).data;
        const parent = node.parentElement;
        if (!parent || !text.trim() || parent.closest("head")) continue;
        const noscript = !!parent.closest("noscript");
        // Text right inside a closed <details> (not in its <summary>) is collapsed though its holder shows.
        const collapsed = parent.localName === "details" && !(/** @type {HTMLDetailsElement} */ (parent).open);
        const hidden = noscript ? "" : collapsed ? "collapsed" : hiddenBy(parent);
        const code = !!parent.closest(CODE);
        const block = noscript ? /** @type {Element} */ (parent.closest("noscript")) : blockOf(parent);
        const key = `${hidden}|${code}|${noscript}`;
        let groups = blocks.get(block);
        if (!groups) blocks.set(block, (groups = new Map()));
        let group = groups.get(key);
        if (!group) groups.set(key, (group = { parts: [], hidden, code, noscript }));
        group.parts.push(text);
      }
    }
    for (const [block, groups] of blocks) {
      for (const group of groups.values()) {
        const location = group.noscript ? "noscript" : group.hidden ? "hidden_text" : "visible_text";
        const joined = group.parts.join("");
        // With scripts on, a <noscript>'s content is raw markup: its words are what that markup says.
        const text = group.noscript ? new DOMParser().parseFromString(joined, "text/html").body.textContent ?? "" : joined;
        const segment = { location, selector: cssPath(block), text };
        if (group.hidden) segment.hidden_by = group.hidden;
        if (group.code) segment.code = true;
        add(segment);
      }
    }
    for (const meta of document.querySelectorAll("meta[content]")) {
      const key = ["name", "property", "http-equiv", "itemprop"].find((k) => meta.hasAttribute(k));
      const selector = key ? `meta[${key}="${meta.getAttribute(key)}"]` : "meta";
      add({ location: "meta", selector, text: meta.getAttribute("content") ?? "" });
    }
    for (const script of document.querySelectorAll('script[type="application/ld+json"]')) {
      add({ location: "structured_data", selector: cssPath(script), text: jsonStrings(script.textContent ?? "") });
    }
    if (document.title) add({ location: "visible_text", selector: "title", text: document.title });
    const out = { url: location.href, title: document.title, segments };
    if (truncated) out.truncated = true;
    return out;
  }

  Object.assign(tp.ops, { "page.assert": pageAssert, "page.injection_scan": injectionScan });
})();
