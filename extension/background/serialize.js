// @ts-check
// Turns any value a page script returns into JSON. Runs inside the page (inlined via toString), so it
// must stay self-contained: no imports, no closures over module scope.
export function toJsonSafe(value) {
  const seen = new WeakSet();
  const MAX_ITEMS = 1000;
  const MAX_DEPTH = 20;
  const describeNode = (node) => {
    if (node.nodeType === 1) {
      const html = node.outerHTML;
      return html.length > 300 ? html.slice(0, 300) + "…" : html;
    }
    if (node.nodeType === 3) return `#text ${JSON.stringify((node.textContent || "").slice(0, 200))}`;
    if (node.nodeType === 9) return `#document (${node.URL})`;
    return `[${node.nodeName}]`;
  };
  const walk = (v, depth) => {
    if (v === null || typeof v === "boolean" || typeof v === "string") return v;
    if (v === undefined) return null;
    if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
    if (typeof v === "bigint") return `${v}n`;
    if (typeof v === "symbol") return v.toString();
    if (typeof v === "function") return `[Function: ${v.name || "anonymous"}]`;
    if (typeof Node !== "undefined" && v instanceof Node) return describeNode(v);
    if (typeof Window !== "undefined" && v instanceof Window) return `[Window ${v === window ? location.href : ""}]`.trim();
    if (v instanceof Error) return `${v.name}: ${v.message}`;
    if (v instanceof Date) return Number.isNaN(v.getTime()) ? "Invalid Date" : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (v instanceof Promise) return "[Promise]";
    if (ArrayBuffer.isView(v)) return `[${v.constructor.name}(${/** @type {{length?: number}} */ (v).length ?? v.byteLength})]`;
    if (v instanceof ArrayBuffer) return `[ArrayBuffer(${v.byteLength})]`;
    if (seen.has(v)) return "[Circular]";
    if (depth >= MAX_DEPTH) return Array.isArray(v) ? "[Array]" : "[Object]";
    seen.add(v);
    try {
      if (typeof v.toJSON === "function" && !(v instanceof Map) && !(v instanceof Set)) return walk(v.toJSON(), depth + 1);
      if (v instanceof Map) return Array.from(v.entries()).slice(0, MAX_ITEMS).map(([k, x]) => [walk(k, depth + 1), walk(x, depth + 1)]);
      const isList =
        Array.isArray(v) || v instanceof Set ||
        (typeof NodeList !== "undefined" && v instanceof NodeList) ||
        (typeof HTMLCollection !== "undefined" && v instanceof HTMLCollection);
      if (isList) return Array.from(v).slice(0, MAX_ITEMS).map((x) => walk(x, depth + 1));
      const out = {};
      let n = 0;
      for (const key in v) {
        if (n++ >= MAX_ITEMS) break;
        let x;
        try {
          x = v[key];
        } catch (err) {
          x = `[Unreadable: ${err && err.message}]`;
        }
        if (x !== undefined) out[key] = walk(x, depth + 1);
      }
      return out;
    } finally {
      seen.delete(v);
    }
  };
  return walk(value, 0);
}
