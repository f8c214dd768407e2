// @ts-check
// scrape.extract and the row signature behind scrape.next_page, inside the page (isolated world).
// Extraction maps every row in one pass with no round trips: selectors are checked and ops compiled
// once, redaction is precomputed once per call (none at all on pages without sensitive elements).
(() => {
  const tp = globalThis.__tabpilot;
  if (!tp?.ops || tp.ops["scrape.extract"]) return;
  const { PageError, REDACTED, queryAll, first, parsed, visible, redaction, isRedacted, textAround } = tp.lib;

  const DEFAULT_MAX_BYTES = 1048576;
  const WS = /\s+/g;
  // eslint-disable-next-line no-control-regex -- the ASCII range is the point
  const NON_ASCII = /[^\x00-\x7f]/;
  const collapse = (s) => s.replace(WS, " ").trim();

  // -- value conversions ----------------------------------------------------------------------

  const MINUS = /[\u2212\u2012\u2013\u2014\uFE63\uFF0D]/g;
  const NUMBER = /\d(?:[\d.,'\u00a0\u202f\u2009 ]*\d)?/;
  const GROUPED_BY_SPACE = /^\d{1,3}(?:[ '\u00a0\u202f\u2009]\d{3})+(?:[.,]\d+)?$/;
  const SPACES = /[ '\u00a0\u202f\u2009]/g;
  const NEG_BEFORE = /(?:^|[^\w-])-\p{Sc}?$|\p{Sc}-$/u;
  const PAREN_BEFORE = /\(\s*(?:\p{Sc}|[A-Z]{3})?\s*$/u;
  const PAREN_AFTER = /^\s*(?:\p{Sc}|[A-Z]{3}|%)?\s*\)/u;
  const EXPONENT = /^[eE]([-+]?\d+)/;

  /**
   * The first number written in `value`: thousands separators (`,` `.` space `'`), either decimal
   * mark, currency, %, a leading minus (also U+2212) or accounting parentheses; null when none.
   */
  function toNumber(value) {
    if (typeof value === "number") return Number.isFinite(value) ? value : null;
    if (typeof value === "boolean") return value ? 1 : 0;
    if (value === REDACTED) return REDACTED;
    if (typeof value !== "string") return null;
    const s = value.replace(MINUS, "-");
    const m = NUMBER.exec(s);
    if (!m) return null;
    let token = m[0];
    const before = s.slice(0, m.index);
    if (/[ '\u00a0\u202f\u2009]/.test(token)) {
      if (GROUPED_BY_SPACE.test(token)) token = token.replace(SPACES, "");
      else token = token.split(/[ '\u00a0\u202f\u2009]/)[0];
    }
    const after = s.slice(m.index + m[0].length);
    const lastDot = token.lastIndexOf(".");
    const lastComma = token.lastIndexOf(",");
    let digits;
    if (lastDot >= 0 && lastComma >= 0) {
      const decimal = lastDot > lastComma ? "." : ",";
      const group = decimal === "." ? "," : ".";
      digits = token.split(group).join("").replace(decimal, ".");
    } else if (lastComma >= 0) {
      // One comma with exactly three digits after it groups thousands (1,234); otherwise it is the
      // decimal mark (12,5). Several commas always group.
      const parts = token.split(",");
      digits = parts.length > 2 || parts[1].length === 3 ? parts.join("") : parts.join(".");
    } else if (lastDot >= 0) {
      const parts = token.split(".");
      digits = parts.length > 2 ? parts.join("") : token;
    } else {
      digits = token;
    }
    let n = Number(digits);
    if (!Number.isFinite(n)) return null;
    const exp = EXPONENT.exec(after);
    if (exp) n *= 10 ** Number(exp[1]);
    const negative = NEG_BEFORE.test(before) || (PAREN_BEFORE.test(before) && PAREN_AFTER.test(after));
    return negative ? -n : n;
  }

  const TRUE_WORDS = new Set(["yes", "true", "on", "y", "1"]);
  const FALSE_WORDS = new Set(["no", "false", "off", "n", "0"]);

  function toBoolean(value) {
    if (typeof value === "boolean") return value;
    if (typeof value === "number") return value === 1 ? true : value === 0 ? false : null;
    if (typeof value !== "string") return null;
    if (value === REDACTED) return REDACTED;
    const word = value.trim().toLowerCase();
    return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : null;
  }

  function toText(value) {
    if (value === null || value === undefined) return null;
    return typeof value === "string" ? collapse(value) : String(value);
  }

  // -- reading elements -----------------------------------------------------------------------

  function readText(el, red) {
    if (red.any && isRedacted(el, red)) return REDACTED;
    const tag = el.localName;
    if (tag === "input" || tag === "textarea") return el.value;
    if (tag === "select") {
      const chosen = el.selectedOptions;
      return chosen.length ? Array.from(chosen, (o) => collapse(o.text)).join(", ") : null;
    }
    if (red.any && red.holders.has(el)) return textAround(el, red);
    return collapse(el.textContent);
  }

  function pathTo(root, el) {
    const path = [];
    for (let n = el; n !== root; n = n.parentElement) path.push(Array.prototype.indexOf.call(n.parentElement.children, n));
    return path.reverse();
  }

  function readHtml(el, red) {
    if (red.any && isRedacted(el, red)) return REDACTED;
    if (!red.any || !red.holders.has(el)) return el.innerHTML;
    // Scrub a copy: the same positions as the redacted elements under `el` (selectors may depend on
    // ancestors outside `el`, so they are matched in the page, not in the copy).
    const paths = Array.from(el.querySelectorAll(red.selector), (r) => pathTo(el, r));
    const copy = el.cloneNode(true);
    for (const path of paths) {
      let n = copy;
      for (const i of path) n = n?.children[i];
      if (!n) continue; // inside a redacted element already scrubbed
      if (n.hasAttribute("value")) n.setAttribute("value", REDACTED);
      if (n.firstChild || n.localName === "textarea") n.textContent = REDACTED;
    }
    return copy.innerHTML;
  }

  function readAttr(el, red, name) {
    if (red.any && isRedacted(el, red)) return REDACTED;
    return el.getAttribute(name);
  }

  const TOGGLES = /^(checkbox|radio)$/i;

  function readBoolean(el, red) {
    if (red.any && isRedacted(el, red)) return REDACTED;
    if (el.localName === "input" && TOGGLES.test(el.type)) return el.checked;
    const aria = el.getAttribute("aria-checked") ?? el.getAttribute("aria-pressed");
    if (aria !== null) return aria === "true" ? true : aria === "false" ? false : null;
    const text = readText(el, red);
    const word = toBoolean(text);
    if (word !== null) return word;
    // A cell or label holding one checkbox (and no yes/no word) reads as that checkbox.
    const inside = el.querySelectorAll("input[type=checkbox], input[type=radio]");
    return inside.length === 1 ? readBoolean(inside[0], red) : null;
  }

  // -- compiling the fields -------------------------------------------------------------------

  const SELF = /^\s*\.?\s*$/;
  const COMBINATOR = /^\s*[>+~]/;

  function compileField(field, index, warnings) {
    if (!field || typeof field !== "object" || typeof field.name !== "string" || !field.name) {
      throw new PageError("invalid_params", `fields[${index}] needs a non-empty 'name'.`, { param: "fields" });
    }
    const raw = field.selector ?? "";
    if (typeof raw !== "string") throw new PageError("invalid_params", `Field '${field.name}': 'selector' must be a string.`, { param: "fields" });
    let selector = null;
    let broken = false;
    if (!SELF.test(raw)) {
      selector = COMBINATOR.test(raw) ? `:scope ${raw}` : raw;
      try {
        document.createDocumentFragment().querySelector(selector);
      } catch {
        broken = true;
        warnings.push(`Field '${field.name}': '${raw}' is not a valid CSS selector; it is null in every row.`);
      }
    }
    const ops = Array.isArray(field.ops) && field.ops.length ? field.ops : [{ op: "text" }];
    const steps = ops.map((step, i) => {
      const op = typeof step === "string" ? step : step?.op;
      if (i === 0) {
        if (op === "text") return (el, red) => readText(el, red);
        if (op === "html") return (el, red) => readHtml(el, red);
        if (op === "number") return (el, red) => toNumber(readText(el, red));
        if (op === "boolean") return (el, red) => readBoolean(el, red);
        if (op === "attr") {
          const name = step?.name;
          if (typeof name !== "string" || !name) {
            throw new PageError("invalid_params", `Field '${field.name}': 'attr' needs an attribute 'name'.`, { param: "fields" });
          }
          return (el, red) => readAttr(el, red, name);
        }
      } else {
        if (op === "text") return toText;
        if (op === "number") return toNumber;
        if (op === "boolean") return toBoolean;
        if (op === "html" || op === "attr") {
          throw new PageError("invalid_params", `Field '${field.name}': '${op}' reads the element, so it can only be the first op.`, {
            param: "fields",
          });
        }
      }
      throw new PageError("invalid_params", `Field '${field.name}': unknown op '${op}'.`, { param: "fields" });
    });
    const [read, ...convert] = steps;
    return { name: field.name, plain: field.name !== "__proto__", selector, broken, read, convert };
  }

  function utf8Length(s) {
    if (!NON_ASCII.test(s)) return s.length;
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff) {
        n += 4;
        i += 1;
      } else n += 3;
    }
    return n;
  }

  async function extract(p) {
    const started = performance.now();
    queryAll(p.selector);
    if (!Array.isArray(p.fields) || !p.fields.length) {
      throw new PageError("invalid_params", "'fields' must be a non-empty list.", { param: "fields" });
    }
    const maxBytes = p.max_bytes ?? DEFAULT_MAX_BYTES;
    if (!Number.isInteger(maxBytes) || maxBytes < 0) {
      throw new PageError("invalid_params", "'max_bytes' must be a whole number of bytes (0 or more).", { param: "max_bytes" });
    }
    const warnings = [];
    const fields = p.fields.map((f, i) => compileField(f, i, warnings));
    const names = new Set();
    for (const f of fields) {
      if (names.has(f.name)) throw new PageError("invalid_params", `Two fields are named '${f.name}'.`, { param: "fields" });
      names.add(f.name);
    }
    if (document.readyState === "loading") await parsed();
    const red = redaction(p.redact);
    const rowEls = queryAll(p.selector);
    const mapStarted = performance.now();
    // Rows leave the page as one JSON text, not as objects: the browser hands a string across to the
    // worker in one copy, where a tree of 2,500 values costs a conversion per value each way (≈ 5 ms at
    // 500 rows × 5 fields). Each row is stringified here anyway, to count the bytes.
    const rows = [];
    let bytes = 2; // the brackets of the array
    let truncated = false;
    for (const rowEl of rowEls) {
      const row = {};
      for (const f of fields) {
        let value = null;
        if (!f.broken) {
          const el = f.selector === null ? rowEl : rowEl.querySelector(f.selector);
          if (el) {
            value = f.read(el, red);
            for (const step of f.convert) value = step(value);
          }
        }
        if (f.plain) row[f.name] = value;
        else Object.defineProperty(row, f.name, { value, enumerable: true, writable: true, configurable: true });
      }
      const text = JSON.stringify(row);
      const size = utf8Length(text) + (rows.length ? 1 : 0);
      if (bytes + size > maxBytes) {
        truncated = true;
        break;
      }
      bytes += size;
      rows.push(text);
    }
    const mapMs = performance.now() - mapStarted;
    if (truncated) {
      warnings.push(`Stopped after ${rows.length} of ${rowEls.length} rows: more would pass max_bytes (${maxBytes} bytes).`);
    }
    return {
      rows_json: `[${rows.join(",")}]`,
      matched: rowEls.length,
      returned: rows.length,
      truncated,
      warnings,
      url: location.href,
      title: document.title,
      timing_ms: { map: round3(mapMs), total: round3(performance.now() - started) },
    };
  }

  const round3 = (ms) => Math.round(ms * 1000) / 1000;

  // -- the row signature for scrape.next_page -------------------------------------------------

  function hash(s) {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    return (h >>> 0).toString(36) + ":" + s.length;
  }

  function rowsSignature(selector) {
    const rows = queryAll(selector || "body");
    if (!rows.length) return { sig: "0", count: 0 };
    return { sig: `${rows.length}|${hash(rows[0].textContent)}|${hash(rows[rows.length - 1].textContent)}`, count: rows.length };
  }

  function nextState(selector) {
    const el = first(selector, "next_selector");
    if (!el || !visible(el)) return "none";
    const parent = el.parentElement;
    const off = (n) => n.matches(":disabled") || n.getAttribute("aria-disabled") === "true" || n.classList.contains("disabled");
    return off(el) || (parent && parent !== document.body && off(parent)) ? "disabled" : "ready";
  }

  /** Before clicking next: the state of the control and the signature of the rows. */
  async function probe(p) {
    queryAll(p.next_selector, "next_selector");
    if (p.rows_selector) queryAll(p.rows_selector, "rows_selector");
    if (document.readyState === "loading") await parsed();
    return { next: nextState(p.next_selector), rows: rowsSignature(p.rows_selector).sig, url: location.href };
  }

  /**
   * After clicking next: resolves when the rows' signature differs from `p.rows` and there are rows
   * again (a list that is emptied while the next page loads has not moved yet), or at the timeout
   * (then `changed` says whether the rows differ at all).
   */
  async function changed(p) {
    const check = () => {
      const now = rowsSignature(p.rows_selector);
      return { ok: now.sig !== p.rows && now.count > 0, differs: now.sig !== p.rows };
    };
    const seen = await tp.lib.waitFor(check, Math.max(0, Number(p.timeout_ms) || 0));
    return { changed: seen.ok || seen.differs, url: location.href };
  }

  Object.assign(tp.ops, { "scrape.extract": extract, "scrape.probe": probe, "scrape.changed": changed });
})();
