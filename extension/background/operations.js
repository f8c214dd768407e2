// Placeholder written by hand (today's traffic from the app) until `python -m tabpilot.contract`
// generates this file from desktop/tabpilot/engine/operations.py; then: generated, do not edit.
// @ts-check
/** @typedef {{type: string[], required: boolean, enum?: string[]}} ParamSpec */
/** @typedef {{pageChanging: boolean, params: Record<string, ParamSpec>}} OperationSpec */

/** @type {Readonly<Record<string, OperationSpec>>} */
export const OPERATIONS = Object.freeze({
  "page.info": {
    pageChanging: false,
    params: {
      tab_id: { type: ["integer"], required: false },
    },
  },
  "dom.query": {
    pageChanging: false,
    params: {
      selector: { type: ["string"], required: true },
      include_styles: { type: ["boolean"], required: false },
      include_children: { type: ["boolean"], required: false },
      max_depth: { type: ["integer"], required: false },
      properties: { type: ["array"], required: false },
      redact: { type: ["array"], required: false },
      tab_id: { type: ["integer"], required: false },
    },
  },
  "tabs.list": {
    pageChanging: false,
    params: {},
  },
  "tabs.track": {
    pageChanging: false,
    params: {
      clear: { type: ["boolean"], required: false },
      tab_id: { type: ["integer"], required: false },
    },
  },
  "tabs.resolve": {
    pageChanging: false,
    params: {
      tab_id: { type: ["integer"], required: false },
    },
  },
  "tab.navigate": {
    pageChanging: true,
    params: {
      url: { type: ["string"], required: true },
      wait_until: { type: ["string"], required: false, enum: ["load", "domcontentloaded", "networkidle"] },
      timeout_ms: { type: ["integer"], required: false },
      tab_id: { type: ["integer"], required: false },
      background: { type: ["boolean"], required: false },
    },
  },
  "js.execute": {
    pageChanging: true,
    params: {
      script: { type: ["string"], required: true },
      timeout_ms: { type: ["integer"], required: false },
      tab_id: { type: ["integer"], required: false },
      background: { type: ["boolean"], required: false },
    },
  },
  "tab.screenshot": {
    pageChanging: false,
    params: {
      format: { type: ["string"], required: false, enum: ["png", "jpeg"] },
      quality: { type: ["integer"], required: false },
      full_page: { type: ["boolean"], required: false },
      tab_id: { type: ["integer"], required: false },
      background: { type: ["boolean"], required: false },
    },
  },
  "tab.crop": {
    pageChanging: false,
    params: {
      selector: { type: ["string"], required: true },
      tab_id: { type: ["integer"], required: false },
    },
  },
  "dom.count": {
    pageChanging: false,
    params: {
      selector: { type: ["string"], required: true },
      tab_id: { type: ["integer"], required: false },
    },
  },
  "dom.wait": {
    pageChanging: false,
    params: {
      selector: { type: ["string"], required: true },
      state: { type: ["string"], required: false, enum: ["visible", "attached", "hidden"] },
      timeout_ms: { type: ["integer"], required: false },
      tab_id: { type: ["integer"], required: false },
    },
  },
  "dom.click": {
    pageChanging: true,
    params: {
      selector: { type: ["string"], required: true },
      timeout_ms: { type: ["integer"], required: false },
      tab_id: { type: ["integer"], required: false },
      background: { type: ["boolean"], required: false },
    },
  },
  "dom.fill": {
    pageChanging: true,
    params: {
      selector: { type: ["string"], required: true },
      value: { type: ["string"], required: true },
      timeout_ms: { type: ["integer"], required: false },
      tab_id: { type: ["integer"], required: false },
      background: { type: ["boolean"], required: false },
    },
  },
  "dom.type": {
    pageChanging: true,
    params: {
      selector: { type: ["string"], required: true },
      text: { type: ["string"], required: true },
      timeout_ms: { type: ["integer"], required: false },
      tab_id: { type: ["integer"], required: false },
      background: { type: ["boolean"], required: false },
    },
  },
  "dom.press": {
    pageChanging: true,
    params: {
      key: { type: ["string"], required: true },
      selector: { type: ["string"], required: false },
      timeout_ms: { type: ["integer"], required: false },
      tab_id: { type: ["integer"], required: false },
      background: { type: ["boolean"], required: false },
    },
  },
  "dom.select": {
    pageChanging: true,
    params: {
      selector: { type: ["string"], required: true },
      value: { type: ["string", "array"], required: true },
      timeout_ms: { type: ["integer"], required: false },
      tab_id: { type: ["integer"], required: false },
      background: { type: ["boolean"], required: false },
    },
  },
  "dom.scroll": {
    pageChanging: false,
    params: {
      selector: { type: ["string"], required: false },
      timeout_ms: { type: ["integer"], required: false },
      tab_id: { type: ["integer"], required: false },
      background: { type: ["boolean"], required: false },
    },
  },
  "scrape.extract": {
    pageChanging: false,
    params: {
      selector: { type: ["string"], required: true },
      fields: { type: ["array"], required: true },
      redact: { type: ["array"], required: false },
      max_bytes: { type: ["integer"], required: false },
      tab_id: { type: ["integer"], required: false },
    },
  },
  "scrape.next_page": {
    pageChanging: true,
    params: {
      next_selector: { type: ["string"], required: true },
      rows_selector: { type: ["string"], required: false },
      timeout_ms: { type: ["integer"], required: false },
      tab_id: { type: ["integer"], required: false },
    },
  },
  "a11y.audit": {
    pageChanging: false,
    params: {
      scope: { type: ["string"], required: false },
      tags: { type: ["array"], required: false },
      include_passes: { type: ["boolean"], required: false },
      redact: { type: ["array"], required: false },
      timeout_ms: { type: ["integer"], required: false },
      tab_id: { type: ["integer"], required: false },
    },
  },
});

export const PAGE_CHANGING_OPS = new Set([
  "tab.navigate",
  "js.execute",
  "dom.click",
  "dom.fill",
  "dom.type",
  "dom.press",
  "dom.select",
  "scrape.next_page",
]);

/**
 * @typedef {object} PageInfoParams page.info
 * @property {number} [tab_id]
 */

/**
 * @typedef {object} DomQueryParams dom.query
 * @property {string} selector
 * @property {boolean} [include_styles]
 * @property {boolean} [include_children]
 * @property {number} [max_depth]
 * @property {unknown[]} [properties]
 * @property {unknown[]} [redact]
 * @property {number} [tab_id]
 */

/**
 * @typedef {object} TabsListParams tabs.list
 */

/**
 * @typedef {object} TabsTrackParams tabs.track
 * @property {boolean} [clear]
 * @property {number} [tab_id]
 */

/**
 * @typedef {object} TabsResolveParams tabs.resolve
 * @property {number} [tab_id]
 */

/**
 * @typedef {object} TabNavigateParams tab.navigate
 * @property {string} url
 * @property {"load" | "domcontentloaded" | "networkidle"} [wait_until]
 * @property {number} [timeout_ms]
 * @property {number} [tab_id]
 * @property {boolean} [background]
 */

/**
 * @typedef {object} JsExecuteParams js.execute
 * @property {string} script
 * @property {number} [timeout_ms]
 * @property {number} [tab_id]
 * @property {boolean} [background]
 */

/**
 * @typedef {object} TabScreenshotParams tab.screenshot
 * @property {"png" | "jpeg"} [format]
 * @property {number} [quality]
 * @property {boolean} [full_page]
 * @property {number} [tab_id]
 * @property {boolean} [background]
 */

/**
 * @typedef {object} TabCropParams tab.crop
 * @property {string} selector
 * @property {number} [tab_id]
 */

/**
 * @typedef {object} DomCountParams dom.count
 * @property {string} selector
 * @property {number} [tab_id]
 */

/**
 * @typedef {object} DomWaitParams dom.wait
 * @property {string} selector
 * @property {"visible" | "attached" | "hidden"} [state]
 * @property {number} [timeout_ms]
 * @property {number} [tab_id]
 */

/**
 * @typedef {object} DomClickParams dom.click
 * @property {string} selector
 * @property {number} [timeout_ms]
 * @property {number} [tab_id]
 * @property {boolean} [background]
 */

/**
 * @typedef {object} DomFillParams dom.fill
 * @property {string} selector
 * @property {string} value
 * @property {number} [timeout_ms]
 * @property {number} [tab_id]
 * @property {boolean} [background]
 */

/**
 * @typedef {object} DomTypeParams dom.type
 * @property {string} selector
 * @property {string} text
 * @property {number} [timeout_ms]
 * @property {number} [tab_id]
 * @property {boolean} [background]
 */

/**
 * @typedef {object} DomPressParams dom.press
 * @property {string} key
 * @property {string} [selector]
 * @property {number} [timeout_ms]
 * @property {number} [tab_id]
 * @property {boolean} [background]
 */

/**
 * @typedef {object} DomSelectParams dom.select
 * @property {string} selector
 * @property {string | unknown[]} value
 * @property {number} [timeout_ms]
 * @property {number} [tab_id]
 * @property {boolean} [background]
 */

/**
 * @typedef {object} DomScrollParams dom.scroll
 * @property {string} [selector]
 * @property {number} [timeout_ms]
 * @property {number} [tab_id]
 * @property {boolean} [background]
 */

/**
 * @typedef {object} ScrapeExtractParams scrape.extract
 * @property {string} selector
 * @property {unknown[]} fields
 * @property {unknown[]} [redact]
 * @property {number} [max_bytes]
 * @property {number} [tab_id]
 */

/**
 * @typedef {object} ScrapeNextPageParams scrape.next_page
 * @property {string} next_selector
 * @property {string} [rows_selector]
 * @property {number} [timeout_ms]
 * @property {number} [tab_id]
 */

/**
 * @typedef {object} A11yAuditParams a11y.audit
 * @property {string} [scope]
 * @property {unknown[]} [tags]
 * @property {boolean} [include_passes]
 * @property {unknown[]} [redact]
 * @property {number} [timeout_ms]
 * @property {number} [tab_id]
 */
