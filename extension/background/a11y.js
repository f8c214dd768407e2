// @ts-check
// a11y.audit: runs axe-core (lib/axe.min.js, copied from npm by `npm ci` in extension/) in the tab's
// top frame, in the extension's isolated world — so it works on pages whose CSP forbids scripts —
// and answers with the violations in a compact form. axe is loaded on demand, once per document.
// The 30 s result cache lives in the app (engine/a11y.py), which knows every caller.
// axe refuses to run twice at once in a document, so there is at most one run per tab: an identical
// request joins it, a different one waits for it. Node snippets and selectors never carry the values
// or text of redacted elements (content/agent.js's redaction: `redact`, or its defaults).
import { closedFrame, closedKind, closedPage } from "./closed_pages.js";
import { ensureAgent } from "./content.js";
import { locateFrame } from "./frames.js";
import * as ext from "./ext.js";
import { Codes, TPError } from "./protocol.js";
import { assertReadable } from "./tabs.js";

const AXE_FILE = "lib/axe.min.js";
const MAX_MS = 30_000;

/** tab id → the axe run going on in it: { doc, key, done }. */
const runs = new Map();

/** Whether lib/axe.min.js is there (asked each time: a HEAD of an extension file takes ~1 ms). */
async function axePresent() {
  try {
    return (await fetch(ext.runtime.getURL(AXE_FILE), { method: "HEAD" })).ok;
  } catch {
    return false;
  }
}

/** Runs in the page's isolated world, where lib/axe.min.js defined `axe`. */
async function runAxe(opts) {
  const MAX_NODES = 10;
  const MAX_HTML = 200;
  const AXE_MAX_SOURCE = 300; // axe keeps only the opening tag of longer elements
  const REDACTED = "[REDACTED]";
  if (opts.scope) {
    let found;
    try {
      found = document.querySelector(opts.scope);
    } catch {
      return { error: { code: "invalid_params", message: `'scope' is not a valid CSS selector: ${opts.scope}` } };
    }
    if (!found) return { error: { code: "element_not_found", message: `Nothing on the page matches the scope '${opts.scope}'.` } };
  }
  /** @type {import("axe-core").RunOptions} */
  const config = {
    resultTypes: opts.include_passes ? ["violations", "incomplete", "passes"] : ["violations", "incomplete"],
    elementRef: true,
  };
  if (Array.isArray(opts.tags) && opts.tags.length) config.runOnly = { type: "tag", values: opts.tags };
  // A run the service worker no longer knows about (it was restarted) may still be going on here.
  const state = (globalThis.__tabpilotAxe ??= { running: null });
  while (state.running) await state.running;
  /** @type {() => void} */
  let release;
  state.running = new Promise((resolve) => (release = resolve));
  /** @type {import("axe-core").AxeResults} */
  let results;
  try {
    results = await globalThis.axe.run(opts.scope ? { include: [opts.scope] } : document, config);
  } catch (err) {
    const message = String(err?.message ?? err);
    if (/already running/i.test(message)) {
      return { error: { code: "internal", message: "Another accessibility audit is running in this tab; try again when it has finished." } };
    }
    const code = /tag|rule/i.test(message) ? "invalid_params" : "internal";
    return { error: { code, message: `axe-core could not run: ${message}` } };
  } finally {
    state.running = null;
    release();
  }

  // The content agent's redaction (content/agent.js): the same selectors, skipped when unparsable.
  const page = globalThis.__tabpilot.lib;
  const red = page.redaction(opts.redact);
  const { marked, holders, selector: redactSelector } = red;
  const isRedacted = (el) => page.isRedacted(el, red);
  const secrets = new Set();
  for (const el of marked) {
    for (const n of [el, ...el.querySelectorAll("[value]")]) {
      const value = n.getAttribute("value");
      if (value) secrets.add(value);
    }
  }
  const scrub = (n) => {
    if (n.hasAttribute("value")) n.setAttribute("value", REDACTED);
    if (n.firstChild || n.localName === "textarea") n.textContent = REDACTED;
  };
  /** axe's snippet of `el`, made again from a copy with the redacted parts scrubbed (content/extract.js does the same). */
  const snippetOf = (el) => {
    const copy = el.cloneNode(true);
    if (isRedacted(el)) scrub(copy);
    else {
      for (const r of el.querySelectorAll(redactSelector)) {
        const path = [];
        for (let n = r; n !== el; n = n.parentElement) path.push(Array.prototype.indexOf.call(n.parentElement.children, n));
        let n = copy;
        for (const i of path.reverse()) n = n?.children[i];
        if (n) scrub(n);
      }
    }
    let html = copy.outerHTML;
    if (html.length > AXE_MAX_SOURCE) {
      const shallow = copy.cloneNode(false).outerHTML;
      const end = `</${copy.localName}>`;
      html = shallow.endsWith(end) ? shallow.slice(0, -end.length) : shallow;
    }
    return html;
  };
  const mentionsSecret = (text) => {
    for (const s of secrets) if (text.includes(s) || text.includes(CSS.escape(s)) || text.includes(JSON.stringify(s).slice(1, -1))) return true;
    return false;
  };
  /** A selector for `el` from its position, for when axe's own one quotes a redacted value. */
  const positionOf = (el) => {
    const parts = [];
    for (let n = el; n; n = n.parentElement) {
      if (n.id && !mentionsSecret(n.id) && document.querySelectorAll(`#${CSS.escape(n.id)}`).length === 1) {
        parts.unshift(`#${CSS.escape(n.id)}`);
        break;
      }
      if (!n.parentElement) {
        parts.unshift(n.localName);
        break;
      }
      const same = Array.prototype.filter.call(n.parentElement.children, (c) => c.localName === n.localName);
      parts.unshift(`${n.localName}:nth-of-type(${same.indexOf(n) + 1})`);
    }
    return parts.join(" > ");
  };
  const redactIn = (text) => {
    let out = text;
    for (const s of secrets) out = out.split(s).join(REDACTED);
    return out;
  };

  const wcag = (tags) =>
    tags
      .filter((t) => /^wcag/.test(t))
      .map((t) => {
        const sc = /^wcag(\d)(\d)(\d{1,2})$/.exec(t);
        return sc ? `${sc[1]}.${sc[2]}.${sc[3]}` : t;
      });
  const selectorOf = (target) => (Array.isArray(target) ? target.map((t) => (Array.isArray(t) ? t.join(" >>> ") : t)).join(" | ") : String(target));
  const nodeOf = (n) => {
    const el = n.element;
    let html = n.html;
    let selector = selectorOf(n.target);
    if (marked.size && el?.nodeType === 1) {
      if (holders.has(el) || isRedacted(el)) html = snippetOf(el);
      if (mentionsSecret(selector)) selector = el.getRootNode() === document ? positionOf(el) : redactIn(selector);
    }
    return {
      selector,
      html: html.length > MAX_HTML ? html.slice(0, MAX_HTML) : html,
      failureSummary: n.failureSummary ?? "",
    };
  };
  const violations = results.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    description: v.description,
    help: v.help,
    helpUrl: v.helpUrl,
    wcag: wcag(v.tags),
    nodes: v.nodes.slice(0, MAX_NODES).map(nodeOf),
    nodeCount: v.nodes.length,
  }));
  const out = {
    url: location.href,
    timestamp: results.timestamp,
    summary: {
      violations: results.violations.length,
      passes: results.passes.length,
      incomplete: results.incomplete.length,
      inapplicable: results.inapplicable.length,
    },
    violations,
    incomplete: results.incomplete.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodeCount: v.nodes.length })),
    axe_version: results.testEngine?.version ?? globalThis.axe.version,
  };
  if (opts.include_passes) out.passes = results.passes.map((v) => ({ id: v.id, help: v.help, nodeCount: v.nodes.length }));
  return { data: out };
}

async function inFrame(tabId, frameId, options) {
  const [frame] = await ext.scripting.executeScript({ target: { tabId, frameIds: [frameId] }, ...options });
  return frame?.result;
}

async function frameDocument(tabId, frameId) {
  try {
    return (await ext.webNavigation.getFrame({ tabId, frameId }))?.documentId ?? "";
  } catch {
    return "";
  }
}

async function startRun(tabId, frameId, opts) {
  await ensureAgent(tabId, frameId); // its redaction is used for the snippets
  const loaded = await inFrame(tabId, frameId, { func: () => typeof globalThis.axe?.run === "function" });
  if (!loaded) await inFrame(tabId, frameId, { files: [AXE_FILE] });
  return inFrame(tabId, frameId, { func: runAxe, args: [opts] });
}

/** The page's reply to this audit: the run going on in the tab's document if it is the same audit. */
async function sharedRun(tabId, frameId, opts) {
  const doc = await frameDocument(tabId, frameId);
  const key = JSON.stringify(opts);
  for (;;) {
    const current = runs.get(tabId);
    if (!current || current.doc !== doc) break;
    if (current.key === key) return current.done;
    await current.done.catch(() => {});
  }
  const entry = { doc, key, done: startRun(tabId, frameId, opts) };
  runs.set(tabId, entry);
  // Kept until the page answers, even after its callers timed out: axe goes on running there.
  entry.done
    .finally(() => {
      if (runs.get(tabId) === entry) runs.delete(tabId);
    })
    .catch(() => {});
  return entry.done;
}

/** @param {import("./operations.js").A11yAuditParams} params */
export async function audit(tab, params, frameMs) {
  assertReadable(tab);
  if (!(await axePresent())) {
    throw new TPError(
      Codes.NOT_SUPPORTED,
      "The accessibility audit needs axe-core, which this copy of the extension lacks: run scripts/bootstrap (npm ci in extension/), then reload the extension.",
    );
  }
  const asked = Number.isFinite(params.timeout_ms) && params.timeout_ms > 0 ? params.timeout_ms : MAX_MS;
  const limit = Math.min(asked, Number.isFinite(frameMs) ? Math.max(1000, frameMs - 500) : MAX_MS);
  let timer = 0;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new TPError(Codes.TIMEOUT, `The accessibility audit did not finish within ${Math.round(limit / 1000)} s.`)),
      limit,
    );
  });
  const opts = {
    scope: params.scope ?? null,
    tags: params.tags ?? null,
    include_passes: !!params.include_passes,
    redact: Array.isArray(params.redact) ? params.redact : null,
  };
  // `frame` (a selector, ref, name or URL pattern): the audit runs in that frame's document.
  const frameId = typeof params.frame === "string" && params.frame.trim() ? await locateFrame(tab.id, params.frame) : 0;
  let reply;
  try {
    reply = await Promise.race([sharedRun(tab.id, frameId, opts), timeout]);
  } catch (err) {
    if (err instanceof TPError) throw err;
    const kind = closedKind(tab, err);
    if (kind && !frameId) throw closedPage(tab, err, kind);
    if (kind) throw closedFrame(frameId, err);
    throw new TPError(Codes.NOT_SUPPORTED, `Tabpilot cannot audit this page: ${err?.message ?? err}`, { tab_id: tab.id });
  } finally {
    clearTimeout(timer);
  }
  if (!reply) throw new TPError(Codes.INTERNAL, "The page went away during the audit (it may be navigating).");
  if (reply.error) throw new TPError(reply.error.code, reply.error.message);
  return reply.data;
}
