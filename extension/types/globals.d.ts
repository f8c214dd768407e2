// What the classic scripts share through globals. content/*.js and capture/*.js are not modules:
// each file is an IIFE that hands its parts to the next through one of these, in manifest order.

/** A content op's answer as the service worker receives it from executeScript. */
interface TabpilotPageReply {
  data?: any;
  error?: { code: string; message: string; details?: any };
}

/** content/agent.js: the page agent in the isolated world; elements.js and extract.js add ops to it. */
interface TabpilotAgent {
  ops: Record<string, (params: any) => any>;
  /** The helpers agent.js shares with the other content scripts (and a11y.js's in-page audit). */
  lib: Record<string, any>;
  run(op: string, params: any): Promise<TabpilotPageReply>;
}

/** capture/hub.js: what the capture modules that load after it use (capture/link.js hides it again). */
interface TabpilotCaptureHub {
  /** The page's built-ins as they were at document_start, before page scripts could replace them. */
  native: Record<string, any>;
  apply: typeof Reflect.apply;
  /** A native accessor's value for `value`, or a marker when `value` is not of its kind. */
  read(getter: ((this: any) => any) | null | undefined, value: unknown): any;
  /** Native accessors (getters) of built-ins, by name: nodeType, bufferLength, typedName... */
  get: Record<string, ((this: any) => any) | null>;
  utf8Length(text: string): number;
  settings: { websockets: boolean; bodies: boolean };
  emit(item: Record<string, unknown>): void;
  flush(): void;
  /** `[text, truncated]`. */
  cut(text: string, max: number): [string, boolean];
  serialize(value: unknown): unknown;
  preview(value: unknown): string;
  callerStack(frames: number, hook: Function): string[];
  sourceOf(line: string | undefined): string;
  isoNow(): string;
  isoAt(epochMs: number): string;
  onSettings(fn: (settings: { websockets: boolean; bodies: boolean }, before: { websockets: boolean; bodies: boolean }) => void): void;
  applySettings(next: { websockets?: boolean; bodies?: boolean } | null | undefined): void;
  connect(sink: (items: unknown[], dropped: number) => void, hold?: () => void, now?: (message: unknown) => void): void;
  signal(message: unknown): void;
  // Each capture module marks itself here, so that a second injection does not hook twice.
  console?: boolean;
  errors?: boolean;
  network?: boolean;
  websocket?: boolean;
  frames?: boolean;
  /** capture/bodies.js: reading request and response bodies, for network.js. */
  bodies?: Record<string, (...args: any[]) => any>;
}

interface Window {
  __tabpilotCaptureHub?: TabpilotCaptureHub;
}

declare var __tabpilot: TabpilotAgent | undefined;
/** capture/relay.js: set once the relay runs in this frame, so a second injection stays out. */
declare var __tabpilotRegex: TabpilotRegex;
declare var __tabpilotRelay: boolean | undefined;
/** capture/relay.js: how many animation-frame callbacks the page has waiting (capture/frames.js). */
declare var __tabpilotFrames: { waiting: number } | undefined;
/** background/a11y.js's in-page audit: the run going on in this document. */
declare var __tabpilotAxe: { running: Promise<void> | null } | undefined;
/** lib/axe.min.js, injected into the isolated world by background/a11y.js before it runs the audit. */
declare var axe: typeof import("axe-core");

// V8's stack trace API (capture/hub.js), which lib.es2022 does not describe.
interface ErrorConstructor {
  captureStackTrace(target: object, constructorOpt?: Function): void;
  stackTraceLimit: number;
}

// User-Agent Client Hints (background/connection.js): Chromium has them, lib.dom does not yet.
interface NavigatorUAData {
  brands: { brand: string; version: string }[];
  platform: string;
}
interface Navigator {
  userAgentData?: NavigatorUAData;
}

/** content/linear_regex.js: agent-supplied regular expressions, matched in linear time (no RegExp). */
interface TabpilotRegex {
  compileRegex(source: string, flags?: string, maxSource?: number): { source: string; flags: string; test(text: string): boolean };
  RegexRefused: new (message: string) => Error;
  MAX_SOURCE: number;
}
