// a11y.audit: runs axe-core (lib/axe.min.js, copied from npm by `npm ci` in extension/) in the tab's
// top frame, in the extension's isolated world — so it works on pages whose CSP forbids scripts —
// and answers with the violations in a compact form. axe is loaded on demand, once per document.
// The 30 s result cache lives in the app (engine/a11y.py), which knows every caller.
import { Codes, TPError } from "./protocol.js";
import { assertReadable } from "./tabs.js";

const AXE_FILE = "lib/axe.min.js";
const MAX_MS = 30_000;

/** Whether lib/axe.min.js is there (asked each time: a HEAD of an extension file takes ~1 ms). */
async function axePresent() {
  try {
    return (await fetch(chrome.runtime.getURL(AXE_FILE), { method: "HEAD" })).ok;
  } catch {
    return false;
  }
}

/** Runs in the page's isolated world, where lib/axe.min.js defined `axe`. */
async function runAxe(opts) {
  const MAX_NODES = 10;
  const MAX_HTML = 200;
  if (opts.scope) {
    let found;
    try {
      found = document.querySelector(opts.scope);
    } catch {
      return { error: { code: "invalid_params", message: `'scope' is not a valid CSS selector: ${opts.scope}` } };
    }
    if (!found) return { error: { code: "element_not_found", message: `Nothing on the page matches the scope '${opts.scope}'.` } };
  }
  const config = { resultTypes: opts.include_passes ? ["violations", "incomplete", "passes"] : ["violations", "incomplete"] };
  if (Array.isArray(opts.tags) && opts.tags.length) config.runOnly = { type: "tag", values: opts.tags };
  let results;
  try {
    results = await globalThis.axe.run(opts.scope ? { include: [opts.scope] } : document, config);
  } catch (err) {
    const message = String(err?.message ?? err);
    const code = /tag|rule/i.test(message) ? "invalid_params" : "internal";
    return { error: { code, message: `axe-core could not run: ${message}` } };
  }
  const wcag = (tags) =>
    tags
      .filter((t) => /^wcag/.test(t))
      .map((t) => {
        const sc = /^wcag(\d)(\d)(\d{1,2})$/.exec(t);
        return sc ? `${sc[1]}.${sc[2]}.${sc[3]}` : t;
      });
  const selectorOf = (target) => (Array.isArray(target) ? target.map((t) => (Array.isArray(t) ? t.join(" >>> ") : t)).join(" | ") : String(target));
  const violations = results.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    description: v.description,
    help: v.help,
    helpUrl: v.helpUrl,
    wcag: wcag(v.tags),
    nodes: v.nodes.slice(0, MAX_NODES).map((n) => ({
      selector: selectorOf(n.target),
      html: n.html.length > MAX_HTML ? n.html.slice(0, MAX_HTML) : n.html,
      failureSummary: n.failureSummary ?? "",
    })),
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

async function inTopFrame(tabId, options) {
  const [frame] = await chrome.scripting.executeScript({ target: { tabId, frameIds: [0] }, ...options });
  return frame?.result;
}

export async function audit(tab, params, frameMs) {
  assertReadable(tab);
  if (!(await axePresent())) {
    throw new TPError(
      Codes.NOT_SUPPORTED,
      "The accessibility audit needs axe-core, which this copy of the extension lacks: run scripts/bootstrap (npm ci in extension/), then reload the extension.",
    );
  }
  const limit = Math.min(MAX_MS, Number.isFinite(frameMs) ? Math.max(1000, frameMs - 500) : MAX_MS);
  let timer = 0;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new TPError(Codes.TIMEOUT, `The accessibility audit did not finish within ${Math.round(limit / 1000)} s.`)),
      limit,
    );
  });
  const run = (async () => {
    const loaded = await inTopFrame(tab.id, { func: () => typeof globalThis.axe?.run === "function" });
    if (!loaded) await inTopFrame(tab.id, { files: [AXE_FILE] });
    const opts = { scope: params.scope ?? null, tags: params.tags ?? null, include_passes: !!params.include_passes };
    return inTopFrame(tab.id, { func: runAxe, args: [opts] });
  })();
  let reply;
  try {
    reply = await Promise.race([run, timeout]);
  } catch (err) {
    if (err instanceof TPError) throw err;
    throw new TPError(Codes.NOT_SUPPORTED, `Tabpilot cannot audit this page: ${err?.message ?? err}`, { tab_id: tab.id });
  } finally {
    clearTimeout(timer);
  }
  if (!reply) throw new TPError(Codes.INTERNAL, "The page went away during the audit (it may be navigating).");
  if (reply.error) throw new TPError(reply.error.code, reply.error.message);
  return reply.data;
}
