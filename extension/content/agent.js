// @ts-check
// Tabpilot's content script: reads the page for the service worker. Isolated world, no page globals.
// The first of the content scripts (manifest order): it creates `globalThis.__tabpilot` with the op
// registry that content/elements.js and content/extract.js add to, and the helpers they share.
// Guarded so that a second injection (after an extension reload) does not register twice; an older
// agent without the registry is replaced.
(() => {
  if (globalThis.__tabpilot?.ops) return;

  const MAX_MATCHES = 50;
  const MAX_TEXT = 500;
  const MAX_DEPTH = 5;
  const MAX_CHILDREN = 50;
  const REDACTED = "[REDACTED]";
  const SENSITIVE = "input[type=password], [data-sensitive], [data-private], .sensitive";
  const LAYOUT_STYLES = [
    "display", "position", "width", "height", "margin", "padding", "flex", "grid", "visibility",
    "opacity", "overflow", "z-index", "color", "background-color", "font-size",
  ];

  class PageError extends Error {
    constructor(code, message, details) {
      super(message);
      this.code = code;
      this.details = details;
    }
  }

  const clean = (s) => (s || "").replace(/\s+/g, " ").trim();
  const cut = (s, n) => (s.length > n ? s.slice(0, n) : s);

  const DEFAULT_REDACT = ["input[type=password]", "[data-sensitive]", "[data-private]", ".sensitive"];
  const ALWAYS_REDACT = "input[type=password]";

  /**
   * What redaction needs, computed once per call: the redacted elements and their ancestors. Each
   * selector is queried on its own, so one the browser cannot parse (a typo in the settings) is
   * skipped instead of failing every read or, joined into one list, switching off all the others.
   */
  function redaction(selectors) {
    const list = Array.isArray(selectors) ? selectors.filter((s) => typeof s === "string" && s.trim()) : DEFAULT_REDACT;
    const all = list.includes(ALWAYS_REDACT) ? list : [ALWAYS_REDACT, ...list];
    const marked = new Set();
    const usable = [];
    for (const one of all) {
      try {
        for (const el of document.querySelectorAll(one)) marked.add(el);
        usable.push(one);
      } catch {
        // not a selector this browser understands: skipped
      }
    }
    const selector = usable.join(", ");
    const hits = [...marked];
    const holders = new Set();
    for (const el of hits) {
      for (let n = el.parentElement; n && !holders.has(n); n = n.parentElement) holders.add(n);
    }
    return { selector, any: hits.length > 0, marked, holders };
  }

  function isRedacted(el, red) {
    for (let n = el; n; n = n.parentElement) if (red.marked.has(n)) return true;
    return false;
  }

  /** Text of an element that contains redacted elements: those parts read as [REDACTED]. */
  function textAround(el, red) {
    let out = "";
    const walk = (node) => {
      for (let c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) out += c.data;
        else if (c.nodeType === 1) {
          if (red.marked.has(c)) out += ` ${REDACTED} `;
          else if (red.holders.has(c)) walk(c);
          else out += c.textContent;
        }
      }
    };
    walk(el);
    return clean(out);
  }

  function textOf(el, red) {
    if (red.any && isRedacted(el, red)) return REDACTED;
    if (red.any && red.holders.has(el)) return cut(textAround(el, red), MAX_TEXT);
    return cut(clean(el.textContent), MAX_TEXT);
  }

  function attributesOf(el, red) {
    const out = {};
    const sensitive = red.any && isRedacted(el, red);
    for (const { name, value } of el.attributes) {
      out[name] = sensitive && name === "value" ? REDACTED : cut(value, MAX_TEXT);
    }
    return out;
  }

  /** A selector for `el`; inside a shadow root, `<host's selector> >> <path in the shadow tree>`. */
  function cssPath(el) {
    const parts = [];
    const root = el.getRootNode();
    let node = el;
    while (node && node.nodeType === 1 && node !== document.documentElement) {
      if (node.id && root.querySelectorAll(`#${CSS.escape(node.id)}`).length === 1) {
        parts.unshift(`#${CSS.escape(node.id)}`);
        break;
      }
      const tag = node.localName;
      const parent = node.parentElement;
      if (!parent) {
        const siblings = root instanceof ShadowRoot ? root.children : null;
        const index = siblings ? Array.prototype.indexOf.call(siblings, node) + 1 : 0;
        parts.unshift(siblings && siblings.length > 1 ? `${tag}:nth-child(${index})` : tag);
        break;
      }
      const index = Array.prototype.indexOf.call(parent.children, node) + 1;
      parts.unshift(parent.children.length > 1 ? `${tag}:nth-child(${index})` : tag);
      node = parent;
    }
    const path = parts.join(" > ");
    return root instanceof ShadowRoot ? `${cssPath(root.host)} >> ${path}` : path;
  }

  function box(el) {
    const r = el.getBoundingClientRect();
    return { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
  }

  /** Every element a selector names: content/locate.js (refs, shadow roots, `>>`) fills this in. */
  const queryAll = (selector, param = "selector") => lib.queryAll(selector, param);

  /** Resolves once the document has been parsed (at once unless it is still loading). */
  function parsed() {
    if (document.readyState !== "loading") return undefined;
    return new Promise((resolve) => document.addEventListener("DOMContentLoaded", resolve, { once: true }));
  }

  function visible(el) {
    if (typeof el.checkVisibility === "function") {
      if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    }
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }

  function stylesOf(el, properties) {
    const computed = getComputedStyle(el);
    const out = {};
    for (const name of properties?.length ? properties : LAYOUT_STYLES) out[name] = computed.getPropertyValue(name);
    return out;
  }

  function childrenOf(el, depth, red) {
    if (depth <= 0) return undefined;
    return Array.from(el.children)
      .slice(0, MAX_CHILDREN)
      .map((child) => {
        const node = { tag: child.localName, attributes: attributesOf(child, red), text: textOf(child, red) };
        const kids = childrenOf(child, depth - 1, red);
        if (kids && kids.length) node.children = kids;
        return node;
      });
  }

  function domQuery(p) {
    const found = queryAll(p.selector);
    const red = redaction(p.redact);
    const depth = Math.min(Number.isInteger(p.max_depth) ? p.max_depth : 3, MAX_DEPTH);
    const matches = Array.from(found)
      .slice(0, MAX_MATCHES)
      .map((el) => {
        const m = {
          selector: cssPath(el),
          tag: el.localName,
          attributes: attributesOf(el, red),
          text: textOf(el, red),
          boundingBox: box(el),
          visible: visible(el),
        };
        if (p.include_styles) m.styles = stylesOf(el, p.properties);
        if (p.include_children) m.children = childrenOf(el, depth, red) ?? [];
        return m;
      });
    return { url: location.href, title: document.title, matches, matchCount: found.length, returnedCount: matches.length };
  }

  function pageInfo() {
    const forms = Array.from(document.forms).map((form) => ({
      id: form.id || form.getAttribute("name") || "",
      action: form.getAttribute("action") ? form.action : "",
      fields: /** @type {HTMLInputElement[]} */ (Array.from(form.elements))
        .filter((f) => !/^(submit|button|reset|image|hidden)$/i.test(f.type || "") && f.localName !== "button" && f.localName !== "fieldset")
        .map((f) => f.name || f.id)
        .filter(Boolean),
    }));
    const headings = Array.from(document.querySelectorAll("h1, h2, h3, h4, h5, h6"))
      .map((h) => cut(clean(h.textContent), 200))
      .filter(Boolean)
      .slice(0, 100);
    const interactive = document.querySelectorAll(
      'a[href], button, input:not([type=hidden]), select, textarea, [role=button], [role=link], [contenteditable=""], [contenteditable=true], [tabindex]:not([tabindex="-1"])',
    );
    const root = document.documentElement;
    return {
      url: location.href,
      title: document.title,
      viewport: { width: window.innerWidth, height: window.innerHeight },
      scroll: { x: Math.round(window.scrollX), y: Math.round(window.scrollY) },
      documentHeight: Math.max(root ? root.scrollHeight : 0, document.body ? document.body.scrollHeight : 0),
      forms,
      headings,
      links: document.querySelectorAll("a[href]").length,
      images: document.images.length,
      interactiveElements: interactive.length,
    };
  }

  async function domCount(p) {
    if (document.readyState === "loading") {
      queryAll(p.selector); // a bad selector fails now, not after the wait
      await parsed();
    }
    const all = queryAll(p.selector);
    let shown = 0;
    for (const el of all) if (visible(el)) shown += 1;
    return { count: all.length, visible: shown };
  }

  const OPS = {
    "page.info": pageInfo,
    "page.brief": () => ({ url: location.href, title: document.title }),
    "dom.query": domQuery,
    "dom.count": domCount,
  };

  /** @type {Record<string, any>} */
  const lib = { PageError, REDACTED, SENSITIVE, clean, cut, parsed, visible, redaction, isRedacted, textAround, cssPath };

  // Called by the service worker through chrome.scripting.executeScript (same isolated world).
  globalThis.__tabpilot = {
    ops: OPS,
    lib,
    async run(op, params) {
      const handler = OPS[op];
      if (!handler) return { error: { code: "not_supported", message: `The page agent has no '${op}'.` } };
      try {
        return { data: await handler(params || {}) };
      } catch (err) {
        const known = err instanceof PageError;
        return {
          error: {
            code: known ? err.code : "internal",
            message: known ? err.message : `Page script error: ${err && err.message}`,
            details: known ? err.details : undefined,
          },
        };
      }
    },
  };
})();
