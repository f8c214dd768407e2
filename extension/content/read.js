// @ts-check
// page.read: the reading helpers of `observe` (text, html, links, forms, markdown, structured_data,
// media, styles), inside the page's isolated world. Every read leaves out what a person cannot see
// where that matters (text, markdown), honours the redaction rules of observe dom (a redacted
// element reads as [REDACTED]; a password's value never leaves the page), and is cut to `max_bytes`
// with a note saying how to read the rest.
(() => {
  const tp = globalThis.__tabpilot;
  if (!tp?.ops || tp.ops["page.read"]) return;
  const { PageError, REDACTED, clean, queryAll, visible, redaction, isRedacted, cssPath } = tp.lib;

  const DEFAULT_MAX_BYTES = 50_000;
  const MAX_ITEMS = 1000;
  const MAX_OPTIONS = 50;
  const MAX_RULES = 100;
  const encoder = new TextEncoder();
  const bytes = (s) => encoder.encode(s).length;

  const SKIPPED = new Set(["script", "style", "noscript", "template", "head", "title", "meta", "link"]);
  // What a field holds is its value, which `forms` reads; it is not text of the page.
  const FIELD_VALUES = new Set(["textarea", "select", "input"]);
  const BLOCK = /^(block|flex|grid|list-item|table|table-row|table-caption|flow-root)$/;
  // A hidden input's value is often a session or CSRF token: those are left out like passwords.
  const TOKEN_NAME = /token|csrf|xsrf|secret|nonce|session|auth|key|signature|password|passwd/i;

  /** `text` cut to at most `max` UTF-8 bytes (never inside a character): [text, cut]. */
  function capText(text, max) {
    if (text.length <= max / 4 || bytes(text) <= max) return [text, false];
    let end = Math.min(text.length, max);
    while (end > 0 && bytes(text.slice(0, end)) > max) end = Math.floor(end * 0.9);
    if (end > 0 && /[\uD800-\uDBFF]/.test(text[end - 1])) end -= 1;
    return [text.slice(0, end), true];
  }

  function rootOf(p) {
    if (!p.selector) return document.body ?? document.documentElement;
    const [first] = queryAll(p.selector);
    if (!first) throw new PageError("element_not_found", `No element matches '${p.selector}'.`, { selector: p.selector });
    return first;
  }

  /** Hidden from a person: not rendered, invisible, transparent, or clipped to nothing (sr-only). */
  function hidden(el, style = getComputedStyle(el)) {
    if (typeof el.checkVisibility === "function" && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) {
      return true;
    }
    if (el.hidden) return true;
    // Measuring is the costly part: only for what the visually-hidden patterns use.
    if (style.position !== "absolute" && style.position !== "fixed" && style.overflow !== "hidden") return false;
    const r = el.getBoundingClientRect();
    return r.width <= 1 && r.height <= 1;
  }

  function note(what, shown, total, max) {
    return `${what} cut at ${shown} of ${total}; pass a 'selector' to read part of the page, or a larger 'max_bytes' (now ${max}).`;
  }

  // -- text ---------------------------------------------------------------------------------------

  /** The visible text under `root`, a line per block, as a person reads it. */
  function visibleText(root, red) {
    const out = [];
    let line = "";
    const flush = () => {
      const t = line.replace(/[ \u00a0]+/g, " ").replace(/ ?\t ?/g, "\t").trim();
      if (t) out.push(t);
      line = "";
    };
    const walk = (node) => {
      for (let c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) {
          line += c.data.replace(/\s+/g, " ");
          continue;
        }
        if (c.nodeType !== 1) continue;
        const el = /** @type {Element} */ (c);
        const tag = el.localName;
        if (SKIPPED.has(tag) || FIELD_VALUES.has(tag)) continue;
        const style = getComputedStyle(el);
        if (hidden(el, style)) continue;
        if (red.any && red.marked.has(el)) {
          if (el.textContent?.trim()) line += ` ${REDACTED} `;
          continue;
        }
        if (tag === "br") {
          flush();
          continue;
        }
        const block = BLOCK.test(style.display);
        if (block) flush();
        if (el.shadowRoot) walk(el.shadowRoot);
        else walk(el);
        if (tag === "td" || tag === "th") line += "\t";
        if (block) flush();
      }
    };
    if (root.nodeType === 1 && red.any && isRedacted(root, red)) return REDACTED;
    walk(root);
    flush();
    return out.join("\n");
  }

  function readText(p, max) {
    const root = rootOf(p);
    if (root !== document.body && hidden(root)) return { text: "", hidden: true };
    const full = visibleText(root, redaction(p.redact));
    const [text, cut] = capText(full, max);
    return cut ? { text, truncated: true, note: note("text", `${bytes(text)} bytes`, `${bytes(full)}`, max) } : { text };
  }

  // -- html ---------------------------------------------------------------------------------------

  /** A field whose value stays in the page: a password, or a hidden field named like a token. */
  const secretField = (el) =>
    el.localName === "input" &&
    (el.type === "password" || (el.type === "hidden" && TOKEN_NAME.test(el.getAttribute("name") || el.id || "")));

  /** outerHTML with redacted elements' contents and secret fields' value attributes replaced. */
  function redactedHtml(root, red) {
    const originals = [root, ...root.querySelectorAll("*")];
    const hits = originals.filter((el) => (red.any && red.marked.has(el)) || (secretField(el) && el.hasAttribute("value")));
    if (!hits.length) return root.outerHTML;
    const clone = /** @type {Element} */ (root.cloneNode(true));
    // The clone's elements come in the same document order as the originals.
    const copies = [clone, ...clone.querySelectorAll("*")];
    const at = new Map(originals.map((el, i) => [el, i]));
    for (const el of hits) {
      const copy = copies[at.get(el) ?? -1];
      if (!copy) continue;
      if (copy.hasAttribute("value")) copy.setAttribute("value", REDACTED);
      if (copy.localName !== "input" && red.marked.has(el)) copy.textContent = REDACTED;
    }
    return clone.outerHTML;
  }

  function readHtml(p, max) {
    const root = p.selector ? rootOf(p) : document.documentElement;
    const full = redactedHtml(root, redaction(p.redact));
    const [html, cut] = capText(full, max);
    return cut ? { html, truncated: true, note: note("html", `${bytes(html)} bytes`, `${bytes(full)}`, max) } : { html };
  }

  // -- links --------------------------------------------------------------------------------------

  function labelOf(el) {
    const text = clean(el.textContent);
    if (text) return text;
    const img = el.querySelector("img[alt]");
    return clean(el.getAttribute("aria-label") || el.getAttribute("title") || img?.getAttribute("alt") || "");
  }

  /** Items until `max` bytes of JSON: [kept, cut]. */
  function capList(items, max) {
    let size = 2;
    for (let i = 0; i < items.length; i += 1) {
      size += bytes(JSON.stringify(items[i])) + 1;
      if (size > max || i >= MAX_ITEMS) return [items.slice(0, i), true];
    }
    return [items, false];
  }

  function readLinks(p, max) {
    const root = rootOf(p);
    const red = redaction(p.redact);
    const all = [...root.querySelectorAll("a[href], area[href]")];
    const items = all.map((a) => {
      const link = /** @type {HTMLAnchorElement} */ (a);
      const sensitive = red.any && isRedacted(link, red);
      return { text: sensitive ? REDACTED : labelOf(link), href: link.getAttribute("href") ?? "", url: link.href, visible: visible(link) };
    });
    const [links, cut] = capList(items, max);
    const out = { links, count: all.length };
    return cut ? { ...out, truncated: true, note: note("links", `${links.length} links`, `${all.length}`, max) } : out;
  }

  // -- forms --------------------------------------------------------------------------------------

  function fieldLabel(f) {
    const byLabel = f.labels ? [...f.labels].map((l) => clean(l.textContent)).filter(Boolean).join(" ") : "";
    if (byLabel) return byLabel;
    const ids = (f.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean);
    const byIds = ids.map((id) => clean(document.getElementById(id)?.textContent)).filter(Boolean).join(" ");
    return byIds || clean(f.getAttribute("aria-label") || f.getAttribute("placeholder") || f.getAttribute("title") || "");
  }

  function fieldOf(f, red) {
    const type = f.localName === "input" ? (f.type || "text").toLowerCase() : f.localName;
    const field = { selector: cssPath(f), tag: f.localName, type, name: f.name || "", label: fieldLabel(f) };
    if (f.id) field.id = f.id;
    const secret = secretField(f) || (red.any && isRedacted(f, red));
    if (type === "checkbox" || type === "radio") {
      field.checked = f.checked;
      field.value = secret ? REDACTED : f.value;
    } else if (f.localName === "select") {
      const options = [...f.options];
      field.value = secret ? REDACTED : f.value;
      field.multiple = f.multiple;
      field.options = secret
        ? []
        : options.slice(0, MAX_OPTIONS).map((o) => ({ value: o.value, text: clean(o.textContent), selected: o.selected }));
      if (options.length > MAX_OPTIONS) field.options_count = options.length;
    } else if (type === "file") {
      field.files = f.files ? [...f.files].map((file) => file.name) : [];
    } else if (!/^(submit|button|reset|image)$/.test(type) && f.localName !== "button") {
      // Never a password's value, not even its length: only whether one is there.
      field.value = secret ? (f.value ? REDACTED : "") : f.value;
    } else {
      field.text = clean(f.textContent) || f.value || "";
    }
    if (f.required) field.required = true;
    if (f.disabled) field.disabled = true;
    if (type !== "hidden" && !visible(f)) field.visible = false;
    return field;
  }

  const FIELDS = "input, select, textarea, button";

  function readForms(p, max) {
    const root = rootOf(p);
    const red = redaction(p.redact);
    /** @type {Record<string, any>[]} */
    const forms = [...(root.localName === "form" ? [root] : root.querySelectorAll("form"))].map((form) => {
      const f = /** @type {HTMLFormElement} */ (form);
      return {
        selector: cssPath(f),
        id: f.id || "",
        name: f.getAttribute("name") || "",
        action: f.getAttribute("action") ? f.action : "",
        method: (f.getAttribute("method") || "get").toLowerCase(),
        fields: [...f.elements].filter((e) => e.matches(FIELDS)).map((e) => fieldOf(e, red)),
      };
    });
    // Fields outside any form (a search box wired up by script) are listed too.
    const loose = [...root.querySelectorAll(FIELDS)].filter((e) => !(/** @type {any} */ (e).form)).map((e) => fieldOf(e, red));
    if (loose.length) forms.push({ selector: "", id: "", name: "", action: "", method: "", fields: loose, outside_forms: true });
    const [kept, cut] = capList(forms, max);
    const out = { url: location.href, forms: kept, count: forms.length };
    return cut ? { ...out, truncated: true, note: note("forms", `${kept.length} forms`, `${forms.length}`, max) } : out;
  }

  // -- markdown -------------------------------------------------------------------------------------

  const UNLIKELY = /comment|footer|nav|sidebar|menu|banner|cookie|share|social|promo|related|advert|\bad\b|popup|modal/i;
  const LIKELY = /article|content|main|post|body|text|entry|story|blog/i;
  const NOT_CONTENT = new Set([...SKIPPED, "nav", "aside", "footer", "header", "svg", "iframe", "canvas", "form", "button", "select", "input", "textarea", "dialog"]);

  function classWeight(el) {
    const name = `${el.id} ${typeof el.className === "string" ? el.className : ""}`;
    return (LIKELY.test(name) ? 25 : 0) - (UNLIKELY.test(name) ? 25 : 0);
  }

  function linkDensity(el, length) {
    let linked = 0;
    for (const a of el.querySelectorAll("a")) linked += clean(a.textContent).length;
    return length ? linked / length : 0;
  }

  /** The main content, readability-style: paragraphs score their parents; links and chrome count against. */
  function mainContent() {
    const marked = document.querySelectorAll("main, [role=main], article");
    if (marked.length === 1 && clean(marked[0].textContent).length > 200) return marked[0];
    const scores = new Map();
    for (const p of document.querySelectorAll("p, pre, td, blockquote, li, h2, h3")) {
      const text = clean(p.textContent);
      if (text.length < 25) continue;
      const score = 1 + text.split(",").length + Math.min(Math.floor(text.length / 100), 3);
      const parent = p.parentElement;
      const grand = parent?.parentElement;
      if (parent) scores.set(parent, (scores.get(parent) ?? classWeight(parent)) + score);
      if (grand) scores.set(grand, (scores.get(grand) ?? classWeight(grand)) + score / 2);
    }
    let best = null;
    let top = 0;
    for (const [el, score] of scores) {
      if (el === document.body || el === document.documentElement) continue;
      const final = score * (1 - linkDensity(el, clean(el.textContent).length));
      if (final > top) [best, top] = [el, final];
    }
    return best ?? document.body;
  }

  function toMarkdown(root, red) {
    const blocks = [];
    const inline = (node) => {
      let s = "";
      for (let c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) s += c.data.replace(/\s+/g, " ");
        else if (c.nodeType === 1) s += inlineEl(/** @type {Element} */ (c));
      }
      return s;
    };
    const inlineEl = (el) => {
      const tag = el.localName;
      if (SKIPPED.has(tag) || hidden(el)) return "";
      if (red.any && red.marked.has(el)) return ` ${REDACTED} `;
      const inner = () => inline(el).trim();
      switch (tag) {
        case "a": {
          const text = inner();
          const href = /** @type {HTMLAnchorElement} */ (el).href;
          return text && href && !href.startsWith("javascript:") ? `[${text}](${href})` : text;
        }
        case "img": {
          const img = /** @type {HTMLImageElement} */ (el);
          return img.currentSrc || img.src ? `![${clean(img.alt)}](${img.currentSrc || img.src})` : "";
        }
        case "strong": case "b": { const t = inner(); return t ? `**${t}**` : ""; }
        case "em": case "i": { const t = inner(); return t ? `_${t}_` : ""; }
        case "code": { const t = el.textContent ?? ""; return t ? `\`${t}\`` : ""; }
        case "br": return "\n";
        default: return inline(el);
      }
    };
    const push = (text) => {
      const t = text.replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
      if (t) blocks.push(t);
    };
    const list = (el, depth) => {
      let n = 0;
      for (const li of el.children) {
        if (li.localName !== "li" || hidden(li)) continue;
        n += 1;
        const marker = el.localName === "ol" ? `${n}.` : "-";
        let own = "";
        const nested = [];
        for (let c = li.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === 1 && /^(ul|ol)$/.test(/** @type {Element} */ (c).localName)) nested.push(c);
          else if (c.nodeType === 3) own += c.data.replace(/\s+/g, " ");
          else if (c.nodeType === 1) own += inlineEl(/** @type {Element} */ (c));
        }
        blocks.push(`${"  ".repeat(depth)}${marker} ${own.trim()}`);
        for (const sub of nested) list(sub, depth + 1);
      }
    };
    const table = (el) => {
      const rows = [...el.querySelectorAll("tr")].filter((r) => !hidden(r));
      if (!rows.length) return;
      const cells = rows.map((r) => [...r.children].map((c) => inline(c).trim().replace(/\|/g, "\\|")));
      const width = Math.max(...cells.map((r) => r.length));
      const line = (r) => `| ${[...r, ...Array(width - r.length).fill("")].join(" | ")} |`;
      push([line(cells[0]), `|${" --- |".repeat(width)}`, ...cells.slice(1).map(line)].join("\n"));
    };
    const block = (el) => {
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) {
          if (c.data.trim()) push(c.data.replace(/\s+/g, " "));
          continue;
        }
        if (c.nodeType !== 1) continue;
        const child = /** @type {Element} */ (c);
        const tag = child.localName;
        if (NOT_CONTENT.has(tag) || hidden(child)) continue;
        if (red.any && red.marked.has(child)) {
          push(REDACTED);
          continue;
        }
        const heading = /^h([1-6])$/.exec(tag);
        if (heading) push(`${"#".repeat(Number(heading[1]))} ${inline(child).trim()}`);
        else if (tag === "p") push(inline(child));
        else if (tag === "ul" || tag === "ol") list(child, 0);
        else if (tag === "pre") push("```\n" + (child.textContent ?? "").replace(/\n$/, "") + "\n```");
        else if (tag === "blockquote") push(inline(child).trim().split("\n").map((l) => `> ${l}`).join("\n"));
        else if (tag === "table") table(child);
        else if (tag === "hr") push("---");
        else if (tag === "img" || tag === "a" || !BLOCK.test(getComputedStyle(child).display)) push(inlineEl(child));
        else block(child);
      }
    };
    if (red.any && isRedacted(root, red)) return REDACTED;
    block(root);
    // Inline runs pushed one by one (text beside links) join back into their paragraph.
    return blocks.join("\n\n");
  }

  function readMarkdown(p, max) {
    const root = p.selector ? rootOf(p) : mainContent();
    const title = clean(document.title);
    let full = toMarkdown(root, redaction(p.redact));
    if (!p.selector && title && !full.startsWith("# ")) full = `# ${title}\n\n${full}`;
    const [markdown, cut] = capText(full, max);
    const out = { url: location.href, title: document.title, source: root === document.body ? "body" : cssPath(root), markdown };
    return cut ? { ...out, truncated: true, note: note("markdown", `${bytes(markdown)} bytes`, `${bytes(full)}`, max) } : out;
  }

  // -- structured data ------------------------------------------------------------------------------

  function readStructured(p, max) {
    const jsonLd = [];
    const errors = [];
    for (const s of document.querySelectorAll('script[type="application/ld+json"]')) {
      const text = s.textContent ?? "";
      try {
        const data = JSON.parse(text);
        if (Array.isArray(data)) jsonLd.push(...data);
        else jsonLd.push(data);
      } catch (err) {
        errors.push({ error: `JSON-LD that does not parse: ${err?.message ?? err}`, text: text.slice(0, 200) });
      }
    }
    const openGraph = {};
    const twitter = {};
    const meta = {};
    for (const m of document.querySelectorAll("meta[content]")) {
      const key = m.getAttribute("property") || m.getAttribute("name") || m.getAttribute("itemprop") || m.getAttribute("http-equiv");
      if (!key) continue;
      const value = m.getAttribute("content") ?? "";
      const bucket = key.startsWith("og:") ? openGraph : key.startsWith("twitter:") ? twitter : meta;
      const name = key.startsWith("og:") || key.startsWith("twitter:") ? key.slice(key.indexOf(":") + 1) : key;
      if (name in bucket) bucket[name] = [].concat(bucket[name], value);
      else bucket[name] = value;
    }
    const links = {};
    for (const l of document.querySelectorAll("link[rel][href]")) {
      const rel = l.getAttribute("rel") ?? "";
      if (/^(canonical|alternate|amphtml|manifest|icon|shortlink|author|license|next|prev)$/i.test(rel)) {
        links[rel.toLowerCase()] = /** @type {HTMLLinkElement} */ (l).href;
      }
    }
    const out = {
      url: location.href,
      title: document.title,
      lang: document.documentElement.lang || "",
      json_ld: jsonLd,
      open_graph: openGraph,
      twitter,
      meta,
      links,
    };
    if (errors.length) out.json_ld_errors = errors;
    const size = bytes(JSON.stringify(out));
    if (size <= max) return out;
    const [kept] = capList(jsonLd, Math.max(0, max - bytes(JSON.stringify({ ...out, json_ld: [] }))));
    return { ...out, json_ld: kept, truncated: true, note: note("json_ld", `${kept.length} items`, `${jsonLd.length}`, max) };
  }

  // -- media --------------------------------------------------------------------------------------

  function sizeOf(el) {
    const r = el.getBoundingClientRect();
    return { width: Math.round(r.width), height: Math.round(r.height) };
  }

  function readMedia(p, max) {
    const root = rootOf(p);
    const images = [...root.querySelectorAll("img")].map((el) => {
      const img = /** @type {HTMLImageElement} */ (el);
      return {
        src: img.currentSrc || img.src,
        alt: img.getAttribute("alt") ?? "",
        ...sizeOf(img),
        natural_width: img.naturalWidth,
        natural_height: img.naturalHeight,
        visible: visible(img),
      };
    });
    const av = (el) => {
      const m = /** @type {HTMLMediaElement} */ (el);
      const sources = [...m.querySelectorAll("source[src]")].map((s) => /** @type {HTMLSourceElement} */ (s).src);
      return {
        src: m.currentSrc || m.src || sources[0] || "",
        ...(sources.length > 1 ? { sources } : {}),
        ...sizeOf(m),
        duration: Number.isFinite(m.duration) ? Math.round(m.duration * 10) / 10 : null,
        paused: m.paused,
        visible: visible(m),
      };
    };
    const video = [...root.querySelectorAll("video")].map((v) => ({ ...av(v), poster: /** @type {HTMLVideoElement} */ (v).poster || "" }));
    const audio = [...root.querySelectorAll("audio")].map(av);
    const [keptImages, cut] = capList(images, Math.max(0, max - bytes(JSON.stringify({ video, audio }))));
    const out = { url: location.href, images: keptImages, video, audio, count: images.length + video.length + audio.length };
    return cut ? { ...out, truncated: true, note: note("images", `${keptImages.length}`, `${images.length}`, max) } : out;
  }

  // -- styles -------------------------------------------------------------------------------------

  const STYLE_NAMES = [
    "display", "position", "top", "left", "width", "height", "margin", "padding", "border", "box-sizing",
    "flex", "flex-direction", "justify-content", "align-items", "gap", "grid-template-columns",
    "visibility", "opacity", "overflow", "z-index", "color", "background-color", "background-image",
    "font-family", "font-size", "font-weight", "line-height", "text-align", "text-decoration", "cursor",
    "transform", "transition", "pointer-events",
  ];

  /** The style rules that match `el`, in cascade order, from every stylesheet the page may read. */
  function matchedRules(el) {
    const rules = [];
    let unreadable = 0;
    const visit = (list, sheet, media) => {
      for (const rule of list) {
        if (rules.length >= MAX_RULES) return;
        if (rule instanceof CSSStyleRule) {
          let hit = false;
          try {
            hit = el.matches(rule.selectorText);
          } catch {
            hit = false; // a selector this browser keeps but cannot match from script (::-webkit-…)
          }
          if (hit) {
            rules.push({
              selector: rule.selectorText,
              source: sheet.href || `<style> #${[...document.styleSheets].indexOf(sheet) + 1}`,
              ...(media ? { media } : {}),
              declarations: rule.style.cssText,
            });
          }
        } else if (rule instanceof CSSMediaRule) {
          if (matchMedia(rule.conditionText).matches) visit(rule.cssRules, sheet, rule.conditionText);
        } else if ("cssRules" in rule && !(rule instanceof CSSImportRule)) {
          visit(/** @type {any} */ (rule).cssRules, sheet, media);
        } else if (rule instanceof CSSImportRule && rule.styleSheet) {
          visitSheet(rule.styleSheet);
        }
      }
    };
    const visitSheet = (sheet) => {
      let list;
      try {
        list = sheet.cssRules;
      } catch {
        unreadable += 1; // another origin's stylesheet, closed to the page's scripts
        return;
      }
      visit(list, sheet, "");
    };
    for (const sheet of document.styleSheets) visitSheet(sheet);
    for (const sheet of document.adoptedStyleSheets ?? []) visitSheet(sheet);
    return { rules, unreadable };
  }

  function readStyles(p) {
    const el = rootOf(p);
    const computed = getComputedStyle(el);
    const names = Array.isArray(p.properties) && p.properties.length ? p.properties : STYLE_NAMES;
    const styles = {};
    for (const name of names) styles[name] = computed.getPropertyValue(name);
    const { rules, unreadable } = matchedRules(el);
    const out = { selector: cssPath(el), tag: el.localName, computed: styles, matched_rules: rules };
    const inline = el.getAttribute("style");
    if (inline) out.inline = inline;
    if (unreadable) out.note = `${unreadable} stylesheet(s) from other origins cannot be read from the page; their rules are not listed.`;
    if (rules.length >= MAX_RULES) out.truncated = true;
    return out;
  }

  const READS = {
    text: readText,
    html: readHtml,
    links: readLinks,
    forms: readForms,
    markdown: readMarkdown,
    structured_data: readStructured,
    media: readMedia,
    styles: readStyles,
  };

  tp.ops["page.read"] = (p) => {
    const read = Object.hasOwn(READS, p.what) ? READS[p.what] : undefined;
    if (!read) throw new PageError("invalid_params", `'what' must be one of ${Object.keys(READS).join(", ")}.`, { param: "what" });
    const max = Number.isInteger(p.max_bytes) && p.max_bytes > 0 ? p.max_bytes : DEFAULT_MAX_BYTES;
    return { url: location.href, title: document.title, ...read(p, max) };
  };
})();
