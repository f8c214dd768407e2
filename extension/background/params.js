// @ts-check
// A command's params against its operation's definition (operations.js, generated from the app's):
// a param the definition lacks is refused, so the two sides cannot drift apart unnoticed. Only the
// JSON type is checked here; what a value means (a selector that parses, a key name) is the handler's.
// The app's twin, desktop/tabpilot/engine/contract/operations.py problems(), applies the same rules.
import { Codes, TPError } from "./protocol.js";

/** @typedef {import("./operations.js").OperationSpec} OperationSpec */

/** The JSON type of a parsed value, as the definitions name them. */
function jsonType(value) {
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value; // string, boolean, object (null never gets here)
}

/** @param {string} type */
const article = (type) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** @param {string[]} accepted */
function fits(value, accepted) {
  const type = jsonType(value);
  return accepted.includes(type) || (type === "integer" && accepted.includes("number"));
}

/**
 * Throws invalid_params ("<op>: '<name>' ...") for a param `spec` does not declare, a required one
 * missing, a value of the wrong JSON type or outside its enum. null counts as absent: the app leaves
 * out what it has no value for, and null is how JSON says the same.
 * @param {string} op
 * @param {OperationSpec} spec
 * @param {Record<string, unknown>} params
 */
export function checkParams(op, spec, params) {
  const declared = spec.params;
  for (const name of Object.keys(params)) {
    if (!Object.hasOwn(declared, name)) {
      const expected = Object.keys(declared).join(", ") || "none";
      throw new TPError(Codes.INVALID_PARAMS, `${op}: unknown parameter '${name}' (expected: ${expected}).`, { param: name });
    }
  }
  for (const [name, param] of Object.entries(declared)) {
    const value = params[name];
    if (value === undefined || value === null) {
      if (param.required) throw new TPError(Codes.INVALID_PARAMS, `${op}: '${name}' is required.`, { param: name });
      continue;
    }
    if (!fits(value, param.type)) {
      throw new TPError(Codes.INVALID_PARAMS, `${op}: '${name}' must be ${param.type.map(article).join(" or ")}.`, { param: name });
    }
    if (param.enum && typeof value === "string" && !param.enum.includes(value)) {
      throw new TPError(Codes.INVALID_PARAMS, `${op}: '${name}' must be one of ${param.enum.join(", ")}.`, { param: name });
    }
  }
}
