// @ts-check
// observe snapshot (dom.snapshot) and interact highlight (dom.highlight), inside the page.
//
// The snapshot is the accessibility tree as compact text, one node a line, in the spirit of
// Playwright's aria snapshot (roles and accessible names computed here, from the DOM):
//     - heading "Sign in" [level=1] @e1
//     - textbox "Email" @e2: alice@example.com
//     - row: 1 | Person 1 | link "p1@example.com" @e3 | active
// Elements without a role of their own (div, span) add nothing but their children; hidden ones
// (display:none, aria-hidden) are left out; open shadow roots are walked as the page shows them
// (slots included). Interactive and named elements carry a ref (`@e5`, content/locate.js) that
// works wherever a selector does. An <iframe> is a line followed by a placeholder the service worker
// replaces with that frame's own snapshot (background/snapshot.js), whose refs carry the frame
// (`@f12e3`). A table row of plain cells is one line: 500 rows stay well under 40 KB.
(() => {
  const tp = globalThis.__tabpilot;
  if (!tp?.ops || tp.ops["dom.snapshot"]) return;
  const { PageError, REDACTED, clean, first, refFor, frameIndexOf, redaction, isRedacted, visible, waitFor } = tp.lib;

  const MAX_NAME = 80;
  const MAX_TEXT = 200;
  const MAX_OPTIONS = 25;
  const MAX_CHARS = 4_000_000; // a runaway page stops here; the app cuts to max_bytes anyway
  /** The line the service worker replaces with a child frame's snapshot: `\0frame <index> <indent> <depth left>`. */
  const FRAME_MARK = "\u0000frame";

  const SKIP = new Set(["script", "style", "noscript", "template", "head", "meta", "link", "title", "tabpilot-highlight"]);
  const INPUT_ROLES = {
    button: "button", submit: "button", reset: "button", image: "button", file: "button",
    checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton", search: "searchbox",
    color: "button", hidden: "",
  };
  const TAG_ROLES = {
    button: "button", textarea: "textbox", option: "option", optgroup: "group", ul: "list", ol: "list",
    menu: "list", li: "listitem", nav: "navigation", main: "main", aside: "complementary", article: "article",
    dialog: "dialog", table: "table", tr: "row", p: "paragraph", blockquote: "blockquote", hr: "separator",
    iframe: "iframe", frame: "iframe", fieldset: "group", details: "group", summary: "button", progress: "progressbar",
    meter: "meter", output: "status", figure: "figure", caption: "caption", dd: "definition", dt: "term",
    h1: "heading", h2: "heading", h3: "heading", h4: "heading", h5: "heading", h6: "heading",
  };
  const INTERACTIVE = new Set([
    "button", "link", "textbox", "searchbox", "checkbox", "radio", "switch", "combobox", "listbox", "option",
    "slider", "spinbutton", "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem",
  ]);
  /** Roles that carry a ref though nobody clicks them: an agent points at them, scopes to them. */
  const NAMED = new Set(["heading", "img", "iframe", "dialog", "alertdialog", "tabpanel", "form", "table"]);
  /** Roles whose name comes from their content (their text is not repeated below them). */
  const FROM_CONTENT = new Set([
    "button", "link", "heading", "cell", "columnheader", "rowheader", "option", "tab", "menuitem",
    "menuitemcheckbox", "menuitemradio", "treeitem", "checkbox", "radio", "switch", "tooltip", "caption", "term",
  ]);
  /** Roles that never show children. */
  const LEAF = new Set(["textbox", "searchbox", "img", "slider", "spinbutton", "separator", "progressbar", "meter", "checkbox", "radio", "switch"]);
  const TRANSPARENT = new Set(["generic", "none", "presentation", "rowgroup"]);
  const CELLS = new Set(["cell", "gridcell", "columnheader", "rowheader"]);
  const TEXT_TYPES = /^(text|email|tel|url|password|search|number|date|datetime-local|month|week|time|)$/i;

  // -- roles and names ------------------------------------------------------------------------

  function hasAncestor(el, names) {
    for (let n = el.parentElement; n; n = n.parentElement) if (names.has(n.localName)) return true;
    return false;
  }
  const SECTIONING = new Set(["article", "aside", "main", "nav", "section"]);

  function implicitRole(el) {
    const tag = el.localName;
    switch (tag) {
      case "a":
      case "area":
        return el.hasAttribute("href") ? "link" : "";
      case "input": {
        const type = (el.getAttribute("type") || "text").toLowerCase();
        if (type in INPUT_ROLES) return INPUT_ROLES[type];
        return el.hasAttribute("list") ? "combobox" : "textbox";
      }
      case "select":
        return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "img":
        return el.getAttribute("alt") === "" && !el.hasAttribute("title") ? "presentation" : "img";
      case "svg":
        return el.hasAttribute("aria-label") || el.querySelector(":scope > title") ? "img" : "";
      case "header":
        return hasAncestor(el, SECTIONING) ? "" : "banner";
      case "footer":
        return hasAncestor(el, SECTIONING) ? "" : "contentinfo";
      case "section":
        return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : "";
      case "form":
        return "form";
      case "td":
        return el.closest("table")?.getAttribute("role") === "grid" ? "gridcell" : "cell";
      case "th":
        return el.getAttribute("scope") === "row" ? "rowheader" : "columnheader";
      case "thead":
      case "tbody":
      case "tfoot":
        return "rowgroup";
      default:
        if (el.isContentEditable && !el.parentElement?.isContentEditable) return "textbox";
        return TAG_ROLES[tag] ?? "";
    }
  }

  function roleOf(el) {
    const explicit = el.getAttribute("role");
    if (explicit) {
      const token = explicit.trim().split(/\s+/)[0].toLowerCase();
      if (token) return token;
    }
    return implicitRole(el);
  }

  const nameCut = (s) => (s.length > MAX_NAME ? s.slice(0, MAX_NAME - 1) + "…" : s);

  /** Text of an element as a name: its text content, images by their alt, hidden parts left out. */
  function textFrom(el) {
    if (!el.firstElementChild) return clean(el.textContent);
    let out = "";
    const walk = (node) => {
      for (let c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) out += c.data;
        else if (c.nodeType === 1) {
          const e = /** @type {Element} */ (c);
          if (SKIP.has(e.localName) || e.getAttribute("aria-hidden") === "true") continue;
          if (e.localName === "img") out += ` ${e.getAttribute("alt") || ""} `;
          else if (e.localName === "input" && /^(button|submit|reset)$/i.test(e.getAttribute("type") || "")) out += ` ${/** @type {HTMLInputElement} */ (e).value} `;
          else {
            out += " ";
            walk(e.shadowRoot?.mode === "open" ? e.shadowRoot : e);
            out += " ";
          }
        }
      }
    };
    walk(el);
    return clean(out);
  }

  function byIds(el, ids) {
    const root = el.getRootNode();
    const find = (id) => (root.getElementById ? root.getElementById(id) : document.getElementById(id));
    return ids
      .split(/\s+/)
      .map((id) => find(id))
      .filter(Boolean)
      .map((n) => n.getAttribute("aria-label") || textFrom(n))
      .join(" ");
  }

  function nameOf(el, role) {
    const labelledBy = el.getAttribute("aria-labelledby");
    if (labelledBy) {
      const named = clean(byIds(el, labelledBy));
      if (named) return nameCut(named);
    }
    const label = clean(el.getAttribute("aria-label") || "");
    if (label) return nameCut(label);
    const tag = el.localName;
    if (tag === "input" || tag === "select" || tag === "textarea") {
      const type = (el.getAttribute("type") || "").toLowerCase();
      if (tag === "input" && /^(button|submit|reset)$/.test(type)) return nameCut(el.value || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : ""));
      if (tag === "input" && type === "image") return nameCut(el.getAttribute("alt") || "Submit");
      const labels = el.labels ? Array.from(el.labels, (l) => textFrom(l)).join(" ") : "";
      if (clean(labels)) return nameCut(clean(labels));
      return nameCut(clean(el.getAttribute("title") || el.getAttribute("placeholder") || ""));
    }
    if (tag === "img" || tag === "area") return nameCut(clean(el.getAttribute("alt") || el.getAttribute("title") || ""));
    if (tag === "fieldset") {
      const legend = el.querySelector(":scope > legend");
      if (legend) return nameCut(textFrom(legend));
    }
    if (tag === "table") {
      const caption = el.querySelector(":scope > caption");
      if (caption) return nameCut(textFrom(caption));
    }
    if (tag === "figure") {
      const caption = el.querySelector(":scope > figcaption");
      if (caption) return nameCut(textFrom(caption));
    }
    if (tag === "svg") {
      const title = el.querySelector(":scope > title");
      if (title) return nameCut(clean(title.textContent));
    }
    if (FROM_CONTENT.has(role)) {
      const text = textFrom(el);
      if (text) return nameCut(text);
    }
    return nameCut(clean(el.getAttribute("title") || ""));
  }

  /** `[checked]`, `[level=2]`, ...: the states an agent acts on. */
  function statesOf(el, role) {
    const out = [];
    const aria = (name) => el.getAttribute(`aria-${name}`);
    if (role === "heading") {
      const level = Number(aria("level")) || Number(el.localName.slice(1)) || 2;
      out.push(`level=${level}`);
    }
    if (role === "checkbox" || role === "radio" || role === "switch" || role === "menuitemcheckbox" || role === "menuitemradio") {
      const checked = el.localName === "input" ? (el.indeterminate ? "mixed" : el.checked) : aria("checked");
      if (checked === true || checked === "true") out.push("checked");
      else if (checked === "mixed") out.push("checked=mixed");
    }
    if (aria("pressed") === "true") out.push("pressed");
    if (aria("expanded") === "true") out.push("expanded");
    else if (aria("expanded") === "false") out.push("collapsed");
    if (aria("selected") === "true" || (el.localName === "option" && el.selected)) out.push("selected");
    if (el.matches(":disabled") || aria("disabled") === "true") out.push("disabled");
    if (el.localName === "details") out.push(el.open ? "expanded" : "collapsed");
    return out;
  }

  /** A field's current value as the snapshot shows it: never a password or a redacted field's. */
  function valueOf(el, role, red) {
    const tag = el.localName;
    let value = "";
    if (tag === "input" && TEXT_TYPES.test(el.type || "")) value = el.value;
    else if (tag === "textarea") value = el.value;
    else if (tag === "select" && role === "combobox") value = Array.from(el.selectedOptions, (o) => clean(o.text)).join(", ");
    else if (role === "textbox" && el.isContentEditable) value = textFrom(el);
    else if (role === "slider" || role === "spinbutton" || role === "progressbar" || role === "meter") value = el.value ?? el.getAttribute("aria-valuenow") ?? "";
    value = clean(String(value ?? ""));
    if (!value) return "";
    if (el.type === "password" || (red.any && isRedacted(el, red))) return REDACTED;
    return value.length > MAX_TEXT ? value.slice(0, MAX_TEXT - 1) + "…" : value;
  }

  // -- the tree -------------------------------------------------------------------------------

  /**
   * How `el` shows: `show`; `through` (visibility:hidden, whose children may be visible: only they
   * count); `skip` (not rendered). A display:contents element has no box but renders its children.
   */
  function rendering(el) {
    if (typeof el.checkVisibility !== "function" || el.checkVisibility({ visibilityProperty: true })) return "show";
    const style = getComputedStyle(el);
    if (style.display === "contents") return "show";
    if (style.display !== "none" && style.visibility === "hidden" && el.firstElementChild) return "through";
    return "skip";
  }

  /** The children the page shows: a shadow root's instead of the host's, a slot's assigned nodes. */
  function shownChildren(el) {
    if (el.shadowRoot && el.shadowRoot.mode === "open") return el.shadowRoot.childNodes;
    if (el.localName === "slot") {
      const assigned = /** @type {HTMLSlotElement} */ (el).assignedNodes({ flatten: true });
      return assigned.length ? assigned : el.childNodes;
    }
    return el.childNodes;
  }

  /**
   * @typedef {{el: Element, role: string, name: string, states: string[], value: string,
   *   kids: (Node_ | string)[], ref: string, frame: number | null, options?: string[]}} Node_
   */

  function build(root, opts, red) {
    /** @type {(Node_ | string)[]} */
    const top = [];
    let muted = 0; // inside a <label> of a control: the control's name says its text already
    const visit = (node, out) => {
      if (node.nodeType === 3) {
        if (muted) return;
        const text = clean(node.data);
        if (text) out.push(red.any && node.parentElement && isRedacted(node.parentElement, red) ? REDACTED : text);
        return;
      }
      if (node.nodeType !== 1) return;
      const el = /** @type {Element} */ (node);
      if (SKIP.has(el.localName) || el.getAttribute("aria-hidden") === "true") return;
      const how = el.localName === "slot" ? "show" : rendering(el);
      if (how === "skip") return;
      const role = how === "through" ? "" : roleOf(el);
      if (!role || TRANSPARENT.has(role)) {
        const label = el.localName === "label" && !!(/** @type {HTMLLabelElement} */ (el).control);
        if (label) muted++;
        for (const child of shownChildren(el)) visit(child, out);
        if (label) muted--;
        return;
      }
      /** @type {Node_} */
      const item = { el, role, name: nameOf(el, role), states: statesOf(el, role), value: "", kids: [], ref: "", frame: null };
      if (role === "textbox" || role === "searchbox" || role === "combobox" || role === "slider" || role === "spinbutton") {
        item.value = valueOf(el, role, red);
      }
      if (role === "iframe") item.frame = frameIndexOf(el);
      const interactive = INTERACTIVE.has(role) || (el.localName === "input" && role !== "") || el.hasAttribute("contenteditable");
      const inSelect = el.localName === "option" || el.localName === "optgroup";
      if ((interactive && !inSelect) || (NAMED.has(role) && (role !== "table" || item.name)) || el.hasAttribute("aria-label")) {
        item.ref = refFor(el);
      }
      if (el.localName === "select") {
        item.options = Array.from(/** @type {HTMLSelectElement} */ (el).options, (o) => clean(o.label || o.text));
      } else if (!LEAF.has(role) && role !== "iframe") {
        const outer = muted;
        muted = 0;
        for (const child of shownChildren(el)) visit(child, item.kids);
        muted = outer;
      }
      out.push(item);
    };
    visit(root, top);
    return top;
  }

  // -- rendering ------------------------------------------------------------------------------

  const quoted = (s) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  const textCut = (s) => (s.length > MAX_TEXT ? s.slice(0, MAX_TEXT - 1) + "…" : s);

  /** Adjacent text pieces as one; element children stay. */
  function merged(kids) {
    const out = [];
    for (const k of kids) {
      if (typeof k === "string" && typeof out[out.length - 1] === "string") out[out.length - 1] += ` ${k}`;
      else out.push(k);
    }
    return out;
  }

  /** What is shown below a node: its children, without the text its name already says. */
  function shownKids(item) {
    const kids = merged(item.kids);
    if (!FROM_CONTENT.has(item.role) || !item.name) return kids;
    return kids.filter((k) => typeof k !== "string");
  }

  function head(item, prefix) {
    let line = item.role;
    if (item.name) line += ` ${quoted(item.name)}`;
    for (const s of item.states) line += ` [${s}]`;
    if (item.ref) line += ` @${prefix}${item.ref}`;
    return line;
  }

  /** A cell shown inside its row's line: its text, or the one element it holds. Null: not plain. */
  function inlineCell(cell, prefix) {
    if (typeof cell === "string" || !CELLS.has(cell.role) || cell.ref) return null;
    const kids = shownKids(cell);
    if (!kids.length) return cell.name;
    if (kids.length === 1 && typeof kids[0] !== "string" && !kids[0].frame && !shownKids(kids[0]).length && !kids[0].options) {
      const only = kids[0];
      return head(only, prefix) + (only.value ? `: ${only.value}` : "");
    }
    return null;
  }

  /**
   * An interactive element's ref and where it is in this frame's viewport (CSS px), for a screenshot
   * annotated with the refs (generate screenshot annotate); one with no box, or (in a child frame)
   * wholly outside the frame's viewport, is left out: the iframe shows nothing of it.
   */
  function boxOf(item, prefix, out) {
    const r = item.el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return;
    if (window !== window.top && (r.right <= 0 || r.bottom <= 0 || r.left >= innerWidth || r.top >= innerHeight)) return;
    out.push({ ref: `@${prefix}${item.ref}`, role: item.role, name: item.name, x: r.left, y: r.top, width: r.width, height: r.height });
  }

  function render(items, opts) {
    const lines = [];
    const prefix = opts.prefix;
    /** @type {Record<string, unknown>[] | null} */
    const boxes = opts.boxes ? [] : null;
    let refs = 0;
    let size = 0;
    const push = (line) => {
      lines.push(line);
      size += line.length + 1;
    };
    const frameLine = (item, depth, left) => push(`${FRAME_MARK} ${item.frame ?? -1} ${depth} ${left}`);

    const walkInteractive = (list, depth) => {
      for (const k of list) {
        if (typeof k === "string" || size > MAX_CHARS) continue;
        if (k.role === "iframe") {
          if (k.ref) refs++;
          push(`${"  ".repeat(depth)}- ${head(k, prefix)}:`);
          frameLine(k, depth + 1, -1);
          continue;
        }
        if (k.ref && INTERACTIVE.has(k.role)) {
          refs++;
          push(`${"  ".repeat(depth)}- ${head(k, prefix)}${k.value ? `: ${k.value}` : ""}`);
          if (boxes) boxOf(k, prefix, boxes);
        }
        walkInteractive(k.kids, depth);
      }
    };

    const walk = (list, depth, left) => {
      const pad = "  ".repeat(depth);
      for (const k of merged(list)) {
        if (size > MAX_CHARS) return;
        if (typeof k === "string") {
          push(`${pad}- text: ${textCut(k)}`);
          continue;
        }
        if (k.ref) refs++;
        if (k.role === "row") {
          const cells = merged(k.kids);
          const inline = cells.length ? cells.map((c) => inlineCell(c, prefix)) : [];
          if (inline.length && inline.every((c) => c !== null)) {
            push(`${pad}- ${head(k, prefix)}: ${inline.join(" | ")}`);
            for (const c of cells) if (typeof c !== "string") for (const x of c.kids) if (typeof x !== "string" && x.ref) refs++;
            continue;
          }
        }
        let line = `${pad}- ${head(k, prefix)}`;
        if (k.role === "iframe") {
          if (left === 0) {
            push(`${line} …`); // its content is below max_depth (the iframe has a ref: scope to it)
          } else {
            push(`${line}:`);
            frameLine(k, depth + 1, left < 0 ? -1 : left - 1);
          }
          continue;
        }
        if (k.options) {
          push(`${line}${k.value ? `: ${k.value}` : ""}`);
          const shown = k.options.slice(0, MAX_OPTIONS).map((o) => quoted(o)).join(", ");
          const more = k.options.length > MAX_OPTIONS ? `, … ${k.options.length - MAX_OPTIONS} more` : "";
          if (k.options.length) push(`${pad}  - options: ${shown}${more}`);
          continue;
        }
        const kids = shownKids(k);
        if (k.value) line += `: ${k.value}`;
        if (!kids.length) {
          push(line);
        } else if (kids.length === 1 && typeof kids[0] === "string" && !k.value) {
          push(`${line}: ${textCut(kids[0])}`);
        } else if (left === 0) {
          // Below max_depth: the node says so and has a ref to scope a closer look to.
          if (!k.ref) {
            k.ref = refFor(k.el);
            refs++;
            line = `${pad}- ${head(k, prefix)}${k.value ? `: ${k.value}` : ""}`;
          }
          push(`${line} …`);
        } else {
          push(`${line}:`);
          walk(kids, depth + 1, left < 0 ? -1 : left - 1);
        }
      }
    };

    if (opts.interactive_only) walkInteractive(items, opts.indent);
    else walk(items, opts.indent, opts.max_depth);
    return { text: lines.join("\n"), refs, boxes };
  }

  async function domSnapshot(p) {
    const started = performance.now();
    if (document.readyState === "loading") await tp.lib.parsed();
    let root = document.body ?? document.documentElement;
    if (p.scope) {
      const scoped = first(p.scope, "scope");
      if (!scoped) throw new PageError("element_not_found", `No element matches the scope '${p.scope}'.`, { scope: p.scope });
      root = scoped;
    }
    const red = redaction(p.redact);
    const depth = Number.isInteger(p.max_depth) && p.max_depth >= 0 ? p.max_depth : -1;
    // The scope element itself is the first line; the whole page starts at the body's children.
    const items = build(root, p, red);
    const { text, refs, boxes } = render(items, {
      prefix: typeof p.prefix === "string" ? p.prefix : "",
      boxes: !!p.boxes && !!p.interactive_only,
      interactive_only: !!p.interactive_only,
      max_depth: depth,
      indent: Number.isInteger(p.indent) ? p.indent : 0,
    });
    return {
      url: location.href,
      title: document.title,
      document: tp.lib.documentId,
      text,
      refs,
      took_ms: Math.round(performance.now() - started),
      ...(boxes ? { boxes, scroll: { x: scrollX, y: scrollY } } : {}),
    };
  }

  // -- highlight ------------------------------------------------------------------------------
  // An outline and a label over the element, drawn in a closed shadow root on a host in the top
  // layer (a popover): the page's CSS cannot reach inside, pointer-events:none lets every click
  // through, and the next highlight replaces it.

  /** @type {{host: HTMLElement, stop: () => void} | null} */
  let shown = null;
  const HOST_STYLE =
    "all: initial !important; position: fixed !important; inset: 0 !important; width: 100vw !important; height: 100vh !important; " +
    "margin: 0 !important; padding: 0 !important; border: 0 !important; background: transparent !important; " +
    "pointer-events: none !important; z-index: 2147483647 !important; overflow: visible !important; display: block !important;";
  const BOX_STYLE =
    "position: fixed; box-sizing: border-box; border: 3px solid #e8590c; border-radius: 3px; " +
    "background: rgba(232, 89, 12, 0.08); pointer-events: none;";
  const LABEL_STYLE =
    "position: fixed; font: 600 12px/16px system-ui, sans-serif; color: #fff; background: #e8590c; padding: 2px 6px; " +
    "border-radius: 3px; white-space: nowrap; pointer-events: none; max-width: 60vw; overflow: hidden; text-overflow: ellipsis;";

  function unhighlight() {
    if (!shown) return;
    shown.stop();
    shown.host.remove();
    shown = null;
  }

  function bounds(el) {
    const r = el.getBoundingClientRect();
    return { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
  }

  function draw(el, label, durationMs) {
    unhighlight();
    const host = document.createElement("tabpilot-highlight");
    host.setAttribute("style", HOST_STYLE);
    const shadow = host.attachShadow({ mode: "closed" });
    const box = document.createElement("div");
    box.setAttribute("style", BOX_STYLE);
    const tag = document.createElement("div");
    tag.setAttribute("style", LABEL_STYLE);
    tag.textContent = label;
    shadow.append(box, tag);
    host.setAttribute("popover", "manual");
    (document.body ?? document.documentElement).appendChild(host);
    try {
      host.showPopover(); // the top layer: above the page's own modals and stacking contexts
    } catch {
      // no popover support, or the page is in fullscreen: the z-index still puts it on top
    }
    let raf = 0;
    const place = () => {
      const r = el.getBoundingClientRect();
      box.style.left = `${r.left - 3}px`;
      box.style.top = `${r.top - 3}px`;
      box.style.width = `${r.width + 6}px`;
      box.style.height = `${r.height + 6}px`;
      tag.style.left = `${Math.max(0, r.left - 3)}px`;
      tag.style.top = r.top >= 22 ? `${r.top - 24}px` : `${r.bottom + 4}px`;
      raf = requestAnimationFrame(place); // follows the element as the page scrolls or moves
    };
    place();
    const timer = setTimeout(unhighlight, durationMs);
    shown = {
      host,
      stop: () => {
        cancelAnimationFrame(raf);
        clearTimeout(timer);
      },
    };
  }

  async function domHighlight(p) {
    const durationMs = Number.isInteger(p.duration_ms) && p.duration_ms > 0 ? p.duration_ms : 5000;
    const timeout = Math.max(0, Number(p.timeout_ms) || 0);
    first(p.selector); // a bad selector or a stale ref fails now
    const seen = await waitFor(() => {
      const el = first(p.selector);
      return el && visible(el) ? { ok: true, el } : { ok: false, found: !!el };
    }, timeout);
    if (!seen.ok) {
      const budget = Math.round(Math.max(timeout, Number(p.budget_ms) || 0));
      if (!seen.found) throw new PageError("element_not_found", `No element matches '${p.selector}' (waited ${budget} ms).`, { selector: p.selector });
      throw new PageError("timeout", `'${p.selector}' matched but was never visible within ${budget} ms.`, { selector: p.selector });
    }
    const el = seen.el;
    const r = el.getBoundingClientRect();
    if (r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) {
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    }
    const role = roleOf(el);
    const name = role ? nameOf(el, role) : "";
    const label = typeof p.label === "string" && p.label ? p.label : [p.selector, role, name && quoted(name)].filter(Boolean).join(" ");
    draw(el, label, durationMs);
    return { highlighted: true, selector: p.selector, bounds: bounds(el), duration_ms: durationMs, role: role || el.localName, name };
  }

  // -- describe: a stable locator for an element an agent acts on ---------------------------------
  // For generate playwright_test (engine/workflows/recorder.py): the element as Playwright's locators would name
  // it — role and accessible name, label, placeholder, text, test id — counted against the rest of the
  // document as those locators match (case-insensitive substring, exact when that is what makes it
  // one), so the generated test names exactly this element; CSS when nothing else is unique.

  const FORM_TAGS = new Set(["input", "select", "textarea"]);
  const MAX_LOCATOR_TEXT = 80;
  const lower = (s) => clean(s).toLowerCase();

  function ariaHidden(el) {
    for (let n = el; n; n = n.parentElement) if (n.getAttribute?.("aria-hidden") === "true") return true;
    return rendering(el) === "skip";
  }

  /** How many elements of `all` match `test`, stopping at 2 (only "one" matters). */
  function count(all, test) {
    let n = 0;
    for (const x of all) if (test(x) && ++n > 1) break;
    return n;
  }

  const labelText = (el) => (el.labels ? Array.from(el.labels, (l) => textFrom(l)).join(" ") : "");

  /** The element's own text: its text when no child element holds all of it. */
  function ownText(el) {
    const text = textFrom(el);
    if (!text || text.length > MAX_LOCATOR_TEXT) return "";
    for (const child of el.children) if (textFrom(child) === text) return "";
    return text;
  }

  function bestLocator(el, selector) {
    const all = tp.lib.queryAll("*");
    const role = roleOf(el);
    let name = role && !TRANSPARENT.has(role) ? nameOf(el, role) : "";
    if (name.endsWith("…")) name = name.slice(0, -1); // cut: its start still matches as a substring
    const tries = [];
    const label = FORM_TAGS.has(el.localName) ? clean(labelText(el)) : "";
    if (label && label.length <= MAX_LOCATOR_TEXT) {
      tries.push([{ by: "label", label }, (x) => FORM_TAGS.has(x.localName) && lower(labelText(x)).includes(lower(label)), (x) => clean(labelText(x)) === label]);
    }
    if (role && name && !TRANSPARENT.has(role) && role !== "iframe") {
      // ("iframe" is the snapshot's word for a frame, not an ARIA role Playwright knows.)
      const same = (x) => roleOf(x) === role && !ariaHidden(x);
      tries.push([{ by: "role", role, name }, (x) => same(x) && lower(nameOf(x, role)).includes(lower(name)), (x) => same(x) && nameOf(x, role) === name]);
    }
    const placeholder = clean(el.getAttribute("placeholder") || "");
    if (placeholder) {
      const of = (x) => clean(x.getAttribute("placeholder") || "");
      tries.push([{ by: "placeholder", placeholder }, (x) => lower(of(x)).includes(lower(placeholder)), (x) => of(x) === placeholder]);
    }
    const text = FORM_TAGS.has(el.localName) ? "" : ownText(el);
    if (text) {
      // As Playwright's text matching: an element whose text matches and none of whose children's does.
      // textContent first: cheap, and only the elements around the text go on to textFrom.
      const near = (x) => !SKIP.has(x.localName) && lower(x.textContent || "").includes(lower(text));
      const loose = (t) => lower(t).includes(lower(text));
      const exact = (t) => t === text;
      const matches = (test) => (x) => near(x) && test(textFrom(x)) && !Array.from(x.children).some((c) => test(textFrom(c)));
      tries.push([{ by: "text", text }, matches(loose), matches(exact)]);
    }
    const testId = el.getAttribute("data-testid");
    if (testId) tries.push([{ by: "test_id", test_id: testId }, (x) => x.getAttribute("data-testid") === testId, null]);
    for (const [locator, loose, exact] of tries) {
      if (count(all, loose) === 1) return locator;
      if (exact && count(all, exact) === 1) return { ...locator, exact: true };
    }
    // CSS: the agent's own selector when it names this element first, else a path to it.
    const own = typeof selector === "string" && !selector.includes("@") ? selector : "";
    if (own) {
      const matches = tp.lib.queryAll(own);
      if (matches[0] === el) return { by: "css", css: own, first: matches.length > 1 };
    }
    return { by: "css", css: tp.lib.cssPath(el), first: false };
  }

  async function domDescribe(p) {
    const timeout = Math.max(0, Number(p.timeout_ms) || 0);
    first(p.selector); // a bad selector or a stale ref fails now
    const seen = await waitFor(() => {
      const el = first(p.selector);
      return el ? { ok: true, el } : { ok: false };
    }, timeout);
    if (!seen.ok) throw new PageError("element_not_found", `No element matches '${p.selector}'.`, { selector: p.selector });
    const el = seen.el;
    const red = redaction(p.redact);
    const sensitive = el.localName === "input" && el.type === "password" ? true : red.any && isRedacted(el, red);
    const described = { locator: bestLocator(el, p.selector), tag: el.localName, sensitive };
    if (el.localName === "input") described.type = (el.getAttribute("type") || "text").toLowerCase();
    const name = el.getAttribute("name") || el.id;
    if (name) described.name = name;
    return described;
  }

  Object.assign(tp.ops, { "dom.snapshot": domSnapshot, "dom.describe": domDescribe, "dom.highlight": domHighlight });
  Object.assign(tp.lib, { FRAME_MARK });
})();
