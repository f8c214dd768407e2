// @ts-check
// Waiting for elements and acting on them inside the page (isolated world): dom.wait, the
// actionability check behind trusted clicks and keys (dom.actionable), dom.fill, dom.select, dom.scroll.
// Registers into the op table content/agent.js created. Every wait here is bounded by the
// `timeout_ms` the service worker passes (what is left of the command's budget); a navigation ends
// the wait with the document and the service worker carries on in the next one.
(() => {
  const tp = globalThis.__tabpilot;
  if (!tp?.ops || tp.ops["dom.wait"]) return;
  const { PageError, clean, queryAll, first, elementAt, visible } = tp.lib;

  const TICK_MS = 100; // fallback poll while frames are not painted (background tabs)
  const STATES = ["visible", "attached", "hidden", "detached"];
  const NOT_TYPABLE = /^(checkbox|radio|button|submit|reset|file|image|hidden|range|color)$/i;
  // Input types a person sets through a picker or a slider: typed text cannot give them a value, so
  // dom.fill sets it in the page and fires input and change (untrusted), as Playwright's fill does.
  const SET_IN_PAGE = /^(date|time|month|week|datetime-local|color|range)$/i;

  /**
   * Resolve with `check()`'s first result that has `ok`, or its last one (with `timedOut`) after
   * `timeoutMs`. Checks run on DOM mutations and on every frame (CSS alone can change visibility),
   * with a timer as the fallback where frames are not painted.
   */
  function waitFor(check, timeoutMs) {
    const initial = check();
    if (initial.ok || timeoutMs <= 0) return Promise.resolve(initial.ok ? initial : { ...initial, timedOut: true });
    return new Promise((resolve, reject) => {
      let last = initial;
      let raf = 0;
      let timer = 0;
      let finished = false;
      const finish = (result, error = undefined) => {
        finished = true;
        observer.disconnect();
        cancelAnimationFrame(raf);
        clearTimeout(timer);
        clearTimeout(deadline);
        if (error) reject(error);
        else resolve(result);
      };
      const look = () => {
        try {
          return check();
        } catch (err) {
          // A check that throws (a ref whose element left the page: stale_ref) ends the wait at once.
          finish(undefined, err);
          return null;
        }
      };
      const tick = () => {
        if (finished) return;
        const seen = look();
        if (!seen) return;
        last = seen;
        if (last.ok) finish(last);
        else schedule();
      };
      const schedule = () => {
        cancelAnimationFrame(raf);
        clearTimeout(timer);
        raf = requestAnimationFrame(tick);
        timer = setTimeout(tick, TICK_MS);
      };
      const observer = new MutationObserver(tick);
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      const deadline = setTimeout(() => {
        if (finished) return;
        const seen = look();
        if (seen) finish(seen.ok ? seen : { ...seen, timedOut: true });
      }, timeoutMs);
      schedule();
    });
  }

  function describe(el) {
    if (!el) return "nothing";
    let out = el.localName;
    if (el.id) out += `#${el.id}`;
    for (const name of Array.from(el.classList).slice(0, 3)) out += `.${name}`;
    return out;
  }

  function isDisabled(el) {
    return el.matches(":disabled") || !!el.closest('[aria-disabled="true"]');
  }

  function isTextControl(el) {
    return el.localName === "textarea" || (el.localName === "input" && !NOT_TYPABLE.test(el.type));
  }

  const setInPage = (el) => el.localName === "input" && SET_IN_PAGE.test(el.type);
  const isFillable = (el) => isTextControl(el) || el.isContentEditable || setInPage(el);

  /** The point a click should land on: the centre of the element's first painted box. */
  function centre(el) {
    let r = el.getBoundingClientRect();
    const rects = el.getClientRects();
    if (rects.length > 1) {
      for (const q of rects) {
        if (q.width > 0 && q.height > 0) {
          r = q;
          break;
        }
      }
    }
    return { r, x: r.left + r.width / 2, y: r.top + r.height / 2 };
  }

  function inViewport(r) {
    return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
  }

  /**
   * One look at the first match of `selector`: `{ok, el, x, y}` when it can take the action, else
   * `{ok:false, found, why}`. `need` says which conditions apply.
   */
  function look(selector, need) {
    const el = first(selector);
    if (!el) return { ok: false, found: false, why: "no element matches it" };
    if (need.visible && !visible(el)) return { ok: false, found: true, why: "it is not visible" };
    if (need.enabled && isDisabled(el)) return { ok: false, found: true, why: "it is disabled" };
    if (need.editable && (el.readOnly || !isFillable(el))) {
      return { ok: false, found: true, why: "it is read-only" };
    }
    if (!need.hit) return { ok: true, el };
    let { r, x, y } = centre(el);
    if (!inViewport(r)) {
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      ({ r, x, y } = centre(el));
    }
    const hit = elementAt(el, x, y);
    if (!hit) return { ok: false, found: true, why: "its centre is outside the viewport" };
    if (hit !== el && !el.contains(hit)) return { ok: false, found: true, why: `it is covered by ${describe(hit)}` };
    return { ok: true, el, x, y };
  }

  const VERB = {
    click: "clickable",
    type: "ready for typing",
    press: "ready for keys",
    fill: "fillable",
    select: "selectable",
    scroll: "there",
    check: "checkable",
    hover: "hoverable",
    focus: "focusable",
    drag: "draggable",
    drop: "a drop target",
    upload: "ready for files",
    download: "there",
    screenshot: "visible",
  };

  /** The time this op may still wait, and the whole budget to name in messages. */
  function times(p) {
    const left = Math.max(0, Number(p.timeout_ms) || 0);
    return { left, budget: Math.round(Math.max(left, Number(p.budget_ms) || 0)) };
  }

  /** Wait until the first match can take `action`; element_not_found / timeout when it never can. */
  async function ready(p, action, need) {
    queryAll(p.selector); // a bad selector is invalid_params at once
    const { left, budget } = times(p);
    const seen = await waitFor(() => look(p.selector, need), left);
    if (seen.ok) return seen;
    const details = { selector: p.selector, timeout_ms: budget };
    if (!seen.found) {
      throw new PageError("element_not_found", `No element matches '${p.selector}' (waited ${budget} ms).`, details);
    }
    throw new PageError(
      "timeout",
      `'${p.selector}' matched but was never ${VERB[action]} within ${budget} ms: ${seen.why}.`,
      { ...details, reason: seen.why },
    );
  }

  /** Give `el` the keyboard focus; the caret goes to the end unless it already had the focus. */
  function focusOn(el, selector) {
    const active = () => document.activeElement;
    if (active() === el || (el.contains(active()) && active() !== document.body)) return;
    el.focus({ preventScroll: true });
    const now = active();
    const took = now === el || el.contains(now) || (el.isContentEditable && now?.contains(el));
    if (!took) {
      throw new PageError("invalid_params", `'${selector}' matched a <${el.localName}> that cannot take the keyboard focus.`, {
        selector,
      });
    }
    if (isTextControl(el)) {
      try {
        const end = el.value.length;
        el.setSelectionRange(end, end);
      } catch {
        // email, number: no selection API; the caret stays where focus() put it
      }
    } else if (el.isContentEditable) {
      const selection = getSelection();
      selection.selectAllChildren(el);
      selection.collapseToEnd();
    }
  }

  // -- ops ------------------------------------------------------------------------------------

  async function domWait(p) {
    const state = p.state ?? "visible";
    if (!STATES.includes(state)) {
      throw new PageError("invalid_params", `'state' must be one of ${STATES.join(", ")}.`, { param: "state" });
    }
    if (state !== "hidden") queryAll(p.selector); // a bad selector or a stale ref fails now
    const { left, budget } = times(p);
    const check = () => {
      let all;
      try {
        all = queryAll(p.selector);
      } catch (err) {
        // A ref whose element left the page: for `hidden` that is the answer, else stale_ref.
        if (state === "hidden" && err instanceof PageError && err.code === "stale_ref") return { ok: true, count: 0 };
        throw err;
      }
      let shown = false;
      if (state !== "attached") {
        for (const el of all) {
          if (visible(el)) {
            shown = true;
            break;
          }
        }
      }
      const ok = state === "attached" ? all.length > 0 : state === "detached" ? all.length === 0 : state === "visible" ? shown : !shown;
      return { ok, count: all.length };
    };
    const seen = await waitFor(check, left);
    if (seen.ok) return { state };
    const found = seen.count ? `${seen.count} match${seen.count > 1 ? "es" : ""}, ${state === "hidden" ? "one still visible" : "none visible"}` : "no element matches it";
    throw new PageError("timeout", `'${p.selector}' did not become ${state} within ${budget} ms (${found}).`, {
      selector: p.selector,
      state,
      timeout_ms: budget,
    });
  }

  // -- the hit-target guard of trusted clicks -------------------------------------------------
  // Between measuring and clicking, the layout can move (the browser's "debugging" bar appears when
  // the debugger attaches and shrinks the viewport; pages shift). The guard watches the click's
  // trusted events: when the press lands on anything but the target, the whole click is swallowed
  // (no handler, no default action) and the service worker measures and clicks again.
  const GUARDED = ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "auxclick", "dblclick", "contextmenu"];
  const ENDS = new Set(["click", "auxclick", "contextmenu"]);
  const GUARD_MS = 5000;
  let guard = null;

  function disarm() {
    if (!guard) return;
    for (const type of GUARDED) window.removeEventListener(type, guard.listener, true);
    clearTimeout(guard.timer);
    guard.active = false;
  }

  function arm(el, x, y) {
    disarm();
    const g = { el, x, y, verdict: null, target: "", active: true, at: 0 };
    g.listener = (e) => {
      if (!e.isTrusted || !g.active) return;
      if (g.verdict === null) {
        g.verdict = e.composedPath().includes(el) ? "landed" : "missed";
        g.target = describe(e.target instanceof Element ? e.target : null);
      }
      if (g.verdict === "missed") {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
      if (ENDS.has(e.type)) {
        g.at = performance.now(); // when the click ended: what it changed is watched from here (content/acts.js)
        disarm();
      }
    };
    for (const type of GUARDED) window.addEventListener(type, g.listener, true);
    g.timer = setTimeout(disarm, GUARD_MS);
    guard = g;
  }

  /**
   * After the click: `landed`, `missed` (swallowed; click again), or `unseen` (no event reached the
   * page: the point was outside the viewport, or a page listener stopped the events first; then
   * `still` says whether the target is still under the point, i.e. whether it was probably clicked).
   */
  function domHit() {
    const g = guard;
    disarm();
    if (!g) return { verdict: "unseen", still: false };
    if (g.verdict) return { verdict: g.verdict, target: g.target, at: g.at };
    const inside = g.x >= 0 && g.y >= 0 && g.x < window.innerWidth && g.y < window.innerHeight;
    const top = inside ? elementAt(g.el, g.x, g.y) : null;
    return { verdict: "unseen", still: !!top && (top === g.el || g.el.contains(top)), target: describe(top) };
  }

  /**
   * The checks before a trusted input event; for a click (or with `point`: a hover, a drag's ends) where
   * the pointer goes (viewport CSS pixels). Only a click is guarded. With `watch`, what the action changes
   * is watched from here (content/acts.js).
   */
  async function domActionable(p) {
    const action = p.action ?? "click";
    const hit = action === "click" || !!p.point;
    const seen = await ready(p, action, { visible: true, enabled: action !== "drop", hit });
    if (p.focus) focusOn(seen.el, p.selector);
    if (p.watch) tp.lib.watch?.();
    if (!hit) return { tag: seen.el.localName };
    if (action === "click") arm(seen.el, seen.x, seen.y);
    return { x: seen.x, y: seen.y, tag: seen.el.localName };
  }

  function fire(el, type) {
    const init = { bubbles: true, composed: true };
    el.dispatchEvent(type === "input" ? new InputEvent("input", { ...init, inputType: "insertReplacementText" }) : new Event(type, init));
  }

  /** Would a `type=number` input take `value` as typed? (a detached probe applies the browser's own rule) */
  function numberTakes(value) {
    const probe = document.createElement("input");
    probe.type = "number";
    probe.value = value;
    return probe.value === value;
  }

  /**
   * The page's part of a fill (background/acting.js fill): wait until the first match is fillable, focus
   * it and select all of its content, so that the text the browser inserts next (trusted input through
   * CDP) replaces it; answers `{filled:false}`. The SET_IN_PAGE types get the value here, with input and
   * change events (untrusted), and answer `{filled:true}`. The value never appears in a message.
   */
  async function domFill(p) {
    if (typeof p.value !== "string") throw new PageError("invalid_params", "'value' must be a string.", { param: "value" });
    queryAll(p.selector);
    const found = first(p.selector);
    if (found) checkFillable(found, p.selector, p.value);
    const { el } = await ready(p, "fill", { visible: true, enabled: true, editable: true });
    checkFillable(el, p.selector, p.value);
    if (p.watch) tp.lib.watch?.();
    if (setInPage(el)) {
      const before = el.value;
      el.focus({ preventScroll: true });
      el.value = p.value;
      // The browser sanitises what the type cannot hold (a malformed date, a range value out of bounds).
      if (el.value.toLowerCase() !== p.value.toLowerCase()) {
        el.value = before; // a refused fill changes nothing
        throw new PageError("invalid_params", `The value is not valid for the ${el.type} input '${p.selector}'.`, { selector: p.selector });
      }
      fire(el, "input");
      fire(el, "change");
      return { filled: true };
    }
    if (document.activeElement !== el) el.focus({ preventScroll: true });
    const now = document.activeElement;
    if (now !== el && !el.contains(now) && !(el.isContentEditable && now?.contains(el))) {
      throw new PageError("invalid_params", `'${p.selector}' matched a <${el.localName}> that cannot take the keyboard focus.`, {
        selector: p.selector,
      });
    }
    if (el.localName === "input" || el.localName === "textarea") {
      el.select();
    } else {
      const range = document.createRange();
      range.selectNodeContents(el);
      const selection = getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    }
    return { filled: false };
  }

  function checkFillable(el, selector, value) {
    if (el.localName === "input" && el.type === "number" && value !== "" && !numberTakes(value)) {
      throw new PageError("invalid_params", `The value is not valid for the number input '${selector}'.`, { selector });
    }
    if (isFillable(el)) return;
    const what = el.localName === "input" ? `an <input type=${el.type}>` : `a <${el.localName}>`;
    const hint = el.localName === "select" ? " (use select)" : el.localName === "input" ? " (use click)" : "";
    throw new PageError("invalid_params", `'${selector}' is ${what}, which cannot be filled${hint}.`, { selector });
  }

  /** Which of `value`, `label`, `text` the request names options by (exactly one; the app checks too). */
  function selectBy(p) {
    const given = ["value", "label", "text"].filter((k) => p[k] !== undefined && p[k] !== null);
    if (given.length !== 1) {
      throw new PageError("invalid_params", "Give exactly one of 'value', 'label' or 'text'.", { param: given[1] ?? "value" });
    }
    const by = given[0];
    const wanted = Array.isArray(p[by]) ? p[by] : [p[by]];
    if (!wanted.length || wanted.some((v) => typeof v !== "string" && typeof v !== "number")) {
      throw new PageError("invalid_params", `'${by}' must be a string (or a list of strings for a multiple select).`, { param: by });
    }
    return { by, wanted: wanted.map(String) };
  }

  /**
   * The option `v` names: by value (then, for compatibility, by label or text), by label (the `label`
   * attribute, else the text), or by its visible text; labels and texts compare with whitespace collapsed.
   */
  function findOption(options, by, v) {
    const label = clean(v);
    const byLabel = (o) => clean(o.label) === label;
    const byText = (o) => clean(o.text) === label;
    if (by === "label") return options.find(byLabel) ?? options.find(byText);
    if (by === "text") return options.find(byText) ?? options.find((o) => clean(o.text).toLowerCase() === label.toLowerCase());
    return options.find((o) => o.value === v) ?? options.find((o) => byLabel(o) || byText(o));
  }

  async function domSelect(p) {
    const { by, wanted } = selectBy(p);
    queryAll(p.selector);
    const { el } = await ready(p, "select", { enabled: true });
    if (el.localName !== "select") {
      throw new PageError("invalid_params", `'${p.selector}' is a <${el.localName}>, not a <select>.`, { selector: p.selector });
    }
    if (!el.multiple && wanted.length > 1) {
      throw new PageError("invalid_params", `'${p.selector}' takes one value; it is not a multiple select.`, { selector: p.selector });
    }
    const options = Array.from(el.options);
    const picked = wanted.map((v) => {
      const option = findOption(options, by, v);
      if (!option || option.disabled) {
        const named = by === "value" ? "value or label" : by;
        throw new PageError(
          "invalid_params",
          option ? `The option '${v}' of '${p.selector}' is disabled.` : `No option of '${p.selector}' has the ${named} '${v}'.`,
          { selector: p.selector, options: options.slice(0, 50).map((o) => ({ value: o.value, label: clean(o.label) })) },
        );
      }
      return option;
    });
    const before = Array.from(el.selectedOptions, (o) => o.value).join("\n");
    if (p.watch) tp.lib.watch?.();
    if (el.multiple) for (const o of options) o.selected = picked.includes(o);
    else el.selectedIndex = picked[0].index;
    fire(el, "input");
    fire(el, "change");
    const chosen = Array.from(el.selectedOptions);
    return {
      selected: chosen.map((o) => o.value),
      labels: chosen.map((o) => clean(o.label)),
      was_selected: before === chosen.map((o) => o.value).join("\n"),
    };
  }

  /**
   * The element into view; or, with a delta, the element's own scrolling box (the page without one) by
   * that many pixels; or the page to its top or bottom (`to`; default: bottom).
   */
  async function domScroll(p) {
    const hasSelector = p.selector !== undefined && p.selector !== null && p.selector !== "";
    const dx = Number(p.delta_x) || 0;
    const dy = Number(p.delta_y) || 0;
    const root = document.scrollingElement || document.documentElement;
    let box = null;
    if (hasSelector) {
      const { el } = await ready(p, "scroll", {});
      if (dx || dy) {
        box = el;
        el.scrollBy({ left: dx, top: dy, behavior: "instant" });
      } else el.scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
    } else if (dx || dy) {
      window.scrollBy({ left: dx, top: dy, behavior: "instant" });
    } else {
      const top = p.to === "top" ? 0 : root.scrollHeight;
      window.scrollTo({ top, left: window.scrollX, behavior: "instant" });
    }
    const html = document.documentElement;
    const out = {
      scroll: { x: Math.round(window.scrollX), y: Math.round(window.scrollY) },
      documentHeight: Math.max(html ? html.scrollHeight : 0, document.body ? document.body.scrollHeight : 0),
    };
    if (box) out.element_scroll = { x: Math.round(box.scrollLeft), y: Math.round(box.scrollTop) };
    return out;
  }

  /**
   * dom.box (tab.screenshot of an element): its box in this frame's viewport, once it is visible; an
   * element not wholly in view is scrolled into it first (as much of it as fits).
   */
  async function domBox(p) {
    const { el } = await ready(p, "screenshot", { visible: true });
    let r = el.getBoundingClientRect();
    if (!inViewport(r)) {
      el.scrollIntoView({ block: r.height > innerHeight ? "start" : "center", inline: "nearest", behavior: "instant" });
      r = el.getBoundingClientRect();
    }
    return { x: r.left, y: r.top, width: r.width, height: r.height };
  }

  Object.assign(tp.ops, {
    "dom.box": domBox,
    "dom.wait": domWait,
    "dom.actionable": domActionable,
    "dom.hit": domHit,
    "dom.fill": domFill,
    "dom.select": domSelect,
    "dom.scroll": domScroll,
  });
  tp.lib.waitFor = waitFor;
  tp.lib.ready = ready;
})();
