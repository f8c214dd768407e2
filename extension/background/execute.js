// @ts-check
// execute_js: the agent's script runs in the page's main world through CDP, so a strict
// Content-Security-Policy does not block it and a runaway loop can be terminated.
import * as cdp from "./cdp.js";
import { Codes, TPError } from "./protocol.js";
import { toJsonSafe } from "./serialize.js";

const PROBE_MS = 300;
const MAX_RESULT_CHARS = 4 * 1024 * 1024; // a result bigger than this would not fit the bridge's frames

function wrap(inner) {
  // The wrapper catches the script's own errors, so an exception reported by CDP can only mean the
  // source did not compile (or the run was terminated).
  return `(async () => {
  const __tpSafe = ${toJsonSafe.toString()};
  try {
    const __tpValue = await (async () => ${inner})();
    return { ok: true, value: __tpSafe(__tpValue) };
  } catch (e) {
    const isErr = e instanceof Error;
    return { ok: false, error: isErr ? String(e.message || e.name) : __tpSafe(e) + "", name: isErr ? e.name : "Error", stack: isErr ? String(e.stack || "") : "" };
  }
})()`;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(() => resolve("timeout"), ms));
}

async function evaluate(tabId, expression, timeoutMs) {
  const run = cdp.send(tabId, "Runtime.evaluate", {
    expression,
    awaitPromise: true,
    returnByValue: true,
    userGesture: true,
    timeout: timeoutMs,
  });
  const raced = await Promise.race([run.then((r) => ({ r }), (e) => ({ e })), sleep(timeoutMs + 100)]);
  if (raced === "timeout") return { timedOut: true };
  if (raced.e) {
    // V8 stops a synchronous runaway at `timeout` and CDP reports it as an internal error.
    if (/Internal error|terminated/i.test(String(raced.e?.message ?? raced.e))) return { timedOut: true };
    throw raced.e;
  }
  const r = raced.r;
  if (r.exceptionDetails) {
    const desc = r.exceptionDetails.exception?.description ?? r.exceptionDetails.text ?? "";
    if (/terminated/i.test(desc)) return { timedOut: true };
    return { compileError: r.exceptionDetails.exception?.className === "SyntaxError", description: desc };
  }
  return { value: r.result?.value };
}

/** Compile `source` alone (never run it): its syntax error with a 1-based line and column, or null. */
async function compileError(tabId, source) {
  // compileScript wants the Runtime domain on; only this rare path (a script that did not compile) pays for it.
  await cdp.send(tabId, "Runtime.enable");
  let r;
  try {
    r = await cdp.send(tabId, "Runtime.compileScript", { expression: source, sourceURL: "", persistScript: false });
  } finally {
    await cdp.send(tabId, "Runtime.disable").catch(() => {});
  }
  const d = r?.exceptionDetails;
  if (!d) return null;
  const text = String(d.exception?.description ?? d.text ?? "SyntaxError").split("\n")[0];
  return { message: text.replace(/^Uncaught /, ""), line: (d.lineNumber ?? 0) + 1, column: (d.columnNumber ?? 0) + 1 };
}

/**
 * Why the agent's script does not compile, in terms of the script itself — never the wrapper around it
 * (`1+` used to read "Unexpected token '}'", a brace the agent never wrote).
 */
async function scriptSyntaxError(tabId, script) {
  const alone = await compileError(tabId, script).catch(() => null);
  // As a plain script, `return` and `await` at the top are illegal though fine in execute_js: then judge it
  // as the function body it is, one line down, and speak of the agent's lines.
  if (alone && !/Illegal return|await is only valid|Unexpected reserved word/i.test(alone.message)) return alone;
  const asBody = await compileError(tabId, `(async function () {\n${script}\n})`).catch(() => null);
  if (!asBody) return alone;
  const lines = script.split("\n");
  const line = asBody.line - 1;
  if (line > lines.length || line < 1) {
    return { message: "SyntaxError: Unexpected end of input", line: lines.length, column: lines[lines.length - 1].length + 1 };
  }
  return { ...asBody, line };
}

/** After a timeout: if the page's main thread is still stuck (an async runaway), stop the script. */
async function unstick(tabId) {
  const probe = cdp.send(tabId, "Runtime.evaluate", { expression: "1", returnByValue: true });
  const answered = await Promise.race([probe.then(() => true, () => true), sleep(PROBE_MS).then(() => false)]);
  if (!answered) {
    await cdp.send(tabId, "Runtime.terminateExecution").catch(() => {});
    await Promise.race([probe.catch(() => {}), sleep(2000)]);
  }
}

/** @param {chrome.tabs.Tab} tab @param {import("./operations.js").JsExecuteParams} param1 */
export async function executeJs(tab, { script, timeout_ms: timeoutMs = 5000 }) {
  const started = Date.now();
  let outcome = await evaluate(tab.id, wrap(`(\n${script}\n)`), timeoutMs);
  if (outcome.compileError) {
    const left = Math.max(50, timeoutMs - (Date.now() - started));
    outcome = await evaluate(tab.id, wrap(`{\n${script}\n}`), left);
  }
  if (outcome.timedOut) {
    await unstick(tab.id);
    throw new TPError(Codes.TIMEOUT, `The script ran longer than ${timeoutMs} ms and was stopped; the page is still usable.`, {
      timeout_ms: timeoutMs,
    });
  }
  if (outcome.compileError) {
    const found = await scriptSyntaxError(tab.id, script);
    if (found) {
      const [kind, ...rest] = found.message.split(": ");
      const what = rest.length ? rest.join(": ") : kind;
      return {
        success: false,
        error: `${rest.length ? kind : "SyntaxError"} in your script at line ${found.line}, column ${found.column}: ${what}`,
        stack: "",
      };
    }
  }
  if (outcome.description !== undefined) {
    const [first] = outcome.description.split("\n");
    return { success: false, error: first, stack: outcome.description };
  }
  const value = outcome.value;
  if (!value || typeof value !== "object") throw new TPError(Codes.INTERNAL, "The script's result could not be read.");
  if (value.ok) {
    const result = value.value ?? null;
    const size = JSON.stringify(result).length;
    if (size > MAX_RESULT_CHARS) {
      return {
        success: true,
        result: `[result too large: ${size} characters of JSON; return less, e.g. a slice or a count]`,
        truncated: true,
      };
    }
    return { success: true, result };
  }
  return { success: false, error: value.name && value.name !== "Error" ? `${value.name}: ${value.error}` : value.error, stack: value.stack };
}
