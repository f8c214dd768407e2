// @ts-check
// Element lookup for every content op: the one place a selector becomes elements (tp.lib.queryAll,
// tp.lib.first). Loaded right after content/agent.js, which created the lib.
//
// A selector is
//   - a ref from observe snapshot: `@e5`. The element is held by a WeakRef, so a ref whose element
//     was removed (or that this document never handed out: refs restart with every new document)
//     fails at once with `stale_ref` instead of waiting out timeout_ms. Refs of other frames
//     (`@f12e5`) are routed to their frame by the service worker (background/frames.js), which
//     passes `@e5` here.
//   - CSS, which pierces open shadow roots as Playwright's CSS engine does: a selector matches in
//     the document and in every open shadow root (each tree on its own; light-DOM matches come
//     first, then each shadow root's in the order of their hosts).
//   - a chain `A >> B`: B inside what A matches (its light subtree and its shadow root). Each part is
//     CSS or a ref; `my-card >> button` crosses a shadow boundary that `my-card button` cannot.
// It also answers the frame questions the service worker cannot answer alone: which frame an
// <iframe> element holds (frame.locate) and where a child frame's viewport sits (frame.offset).
(() => {
  const tp = globalThis.__tabpilot;
  if (!tp?.lib || tp.lib.first) return;
  const { PageError } = tp.lib;

  const REF = /^@e(\d+)$/;
  const FRAME_REF = /^@f\d+(?:e\d+)?$/;
  const SNAPSHOT_HINT = "take a new snapshot (observe {what:'snapshot'}) and use its refs";

  // -- refs -----------------------------------------------------------------------------------

  /** @type {Map<string, WeakRef<Element>>} */
  const byRef = new Map();
  /** @type {WeakMap<Element, string>} */
  const refOf = new WeakMap();
  let nextRef = 1;
  /** This document's id: refs are only good in the document that handed them out. */
  const documentId = Math.random().toString(36).slice(2, 10);

  /** The element's ref (`e5`; agents write it with a leading at-sign): the same one every time. */
  function refFor(el) {
    let ref = refOf.get(el);
    if (!ref) {
      ref = `e${nextRef++}`;
      refOf.set(el, ref);
      byRef.set(ref, new WeakRef(el));
    }
    return ref;
  }

  function stale(selector, why) {
    return new PageError("stale_ref", `The ref '${selector}' ${why}; ${SNAPSHOT_HINT}.`, { selector });
  }

  function byRefName(token) {
    if (FRAME_REF.test(token)) throw stale(token, "belongs to a frame that is not this one (it may have gone away)");
    const m = REF.exec(token);
    if (!m) return null;
    const held = byRef.get(`e${m[1]}`);
    if (!held) throw stale(token, "is not a ref of this page (refs start again when the page loads a new document)");
    const el = held.deref();
    if (!el || !el.isConnected) throw stale(token, "points to an element that is no longer in the page");
    return el;
  }

  // -- CSS that pierces open shadow roots ------------------------------------------------------

  /** Open shadow roots under `scope` (not nested ones: the caller recurses). */
  function shadowRootsIn(scope) {
    const out = [];
    for (const el of scope.querySelectorAll("*")) {
      const root = el.shadowRoot;
      if (root && root.mode === "open") out.push(root);
    }
    return out;
  }

  /** Every match of `css` in `scope` (a document, shadow root or element) and the shadow trees below it. */
  function pierce(scope, css, out) {
    for (const el of scope.querySelectorAll(css)) out.push(el);
    for (const root of shadowRootsIn(scope)) pierce(root, css, out);
    return out;
  }

  /** Split `a >> b` on the `>>` that are outside quotes, brackets and parentheses. */
  function splitChain(selector) {
    const parts = [];
    let depth = 0;
    let quote = "";
    let start = 0;
    for (let i = 0; i < selector.length; i++) {
      const c = selector[i];
      if (quote) {
        if (c === "\\") i++;
        else if (c === quote) quote = "";
      } else if (c === '"' || c === "'") quote = c;
      else if (c === "[" || c === "(") depth++;
      else if (c === "]" || c === ")") depth = Math.max(0, depth - 1);
      else if (c === ">" && selector[i + 1] === ">" && depth === 0) {
        parts.push(selector.slice(start, i).trim());
        i++;
        start = i + 1;
      }
    }
    parts.push(selector.slice(start).trim());
    return parts;
  }

  function checkSelector(selector, param) {
    if (typeof selector !== "string" || !selector.trim()) {
      throw new PageError("invalid_params", `'${param}' must be a non-empty CSS selector or a ref (@e5).`, { param });
    }
  }

  /** The elements `part` (CSS or a ref) names inside each of `roots`, without duplicates. */
  function step(roots, part, selector, param) {
    if (!part) throw new PageError("invalid_params", `'${selector}' has an empty part around '>>'.`, { param });
    if (part.startsWith("@")) {
      const el = byRefName(part);
      if (!el) throw new PageError("invalid_params", `'${part}' is not a ref (refs look like @e5).`, { param });
      return [el];
    }
    const found = [];
    try {
      for (const root of roots) {
        pierce(root, part, found);
        if (root instanceof Element && root.shadowRoot?.mode === "open") pierce(root.shadowRoot, part, found);
      }
    } catch {
      throw new PageError("invalid_params", `'${selector}' is not a valid CSS selector.`, { param, selector });
    }
    return roots.length > 1 ? [...new Set(found)] : found;
  }

  /**
   * Every element `selector` names, in order (see the top of this file). A bad selector is
   * invalid_params naming `param`; a ref that no longer holds an element is stale_ref, at once.
   * @returns {Element[]}
   */
  function queryAll(selector, param = "selector") {
    checkSelector(selector, param);
    const trimmed = selector.trim();
    const single = byRefName(trimmed);
    if (single) return [single];
    /** @type {any[]} */
    let roots = [document];
    for (const part of splitChain(trimmed)) roots = step(roots, part, trimmed, param);
    return roots;
  }

  /** The first element `selector` names, or null; errors as queryAll. */
  function first(selector, param = "selector") {
    return queryAll(selector, param)[0] ?? null;
  }

  /**
   * The element at viewport point (x, y) as `el`'s own tree sees it: inside a shadow root, the element
   * there, not its host (document.elementFromPoint stops at the host). Hit tests compare it with `el`.
   */
  function elementAt(el, x, y) {
    const root = el.getRootNode();
    return root instanceof ShadowRoot ? root.elementFromPoint(x, y) : document.elementFromPoint(x, y);
  }

  // -- frames ---------------------------------------------------------------------------------

  const FRAME_TAGS = new Set(["iframe", "frame"]);

  /**
   * Which of this window's child frames an <iframe> element holds: its index in `window.frames`, or
   * null. The service worker learns each child frame's index from the child itself (its place in
   * `parent.frames`, which even a cross-origin frame can compare), and so maps indexes to frame ids.
   */
  function frameIndexOf(el) {
    const win = el.contentWindow;
    if (!win) return null;
    for (let i = 0; i < window.frames.length; i++) if (window.frames[i] === win) return i;
    return null;
  }

  /** Every <iframe>/<frame> of the document, shadow roots included. */
  function frameElements() {
    return pierce(document, "iframe, frame", []);
  }

  /**
   * frame.locate: the frame `target` names in this document: a selector or ref of an <iframe>, or
   * a frame's name or id. `{index}` (see frameIndexOf) or `{index: null}` (the caller tries URL patterns next).
   */
  function frameLocate(p) {
    const target = String(p.target ?? "").trim();
    let el = null;
    try {
      el = first(target, "frame");
    } catch (err) {
      if (err instanceof PageError && err.code === "stale_ref") throw err;
      el = null; // not a selector: perhaps a name
    }
    if (el && !FRAME_TAGS.has(el.localName)) {
      throw new PageError("invalid_params", `'frame' names a <${el.localName}>, not an <iframe>.`, { param: "frame" });
    }
    if (!el) el = frameElements().find((f) => f.getAttribute("name") === target || f.id === target) ?? null;
    return { index: el ? frameIndexOf(el) : null };
  }

  /** frame.offset: where the viewport of child frame number `index` starts in this frame's viewport. */
  function frameOffset(p) {
    const el = frameElements().find((f) => frameIndexOf(f) === p.index);
    if (!el) return { found: false };
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    const x = r.left + el.clientLeft + parseFloat(style.paddingLeft || "0");
    const y = r.top + el.clientTop + parseFloat(style.paddingTop || "0");
    return { found: true, x, y };
  }

  Object.assign(tp.ops, { "frame.locate": frameLocate, "frame.offset": frameOffset });
  Object.assign(tp.lib, { queryAll, first, elementAt, refFor, frameIndexOf, splitChain, documentId });
})();
