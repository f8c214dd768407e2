// The link to the Tabpilot app: one WebSocket, commands pushed by the app, reconnect with backoff.
import { DEFAULT_PORT, PROTOCOL_VERSION, parseFrame, resultErr, resultOk } from "./protocol.js";

const KEEPALIVE_MS = 20_000; // a message every 20 s keeps an MV3 service worker alive (Chrome 116+)
const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 5000];
const REFUSED_BACKOFF_MS = 15_000;
export const WAKE_ALARM = "tabpilot-reconnect";

/** Where to connect: a managed browser's launch file wins, else the port the user set in the popup. */
async function loadTarget() {
  try {
    const res = await fetch(chrome.runtime.getURL("managed.json"), { cache: "no-store" });
    if (res.ok) {
      const managed = await res.json();
      if (Number.isInteger(managed.port)) return { port: managed.port, nonce: managed.nonce, managed: true };
    }
  } catch {
    // not a managed browser
  }
  const { port } = await chrome.storage.local.get({ port: DEFAULT_PORT });
  return { port, managed: false };
}

let instanceIdPromise = null;

/** This extension install's stable id; one promise so that concurrent first calls agree. */
function instanceId() {
  instanceIdPromise ??= (async () => {
    const { instanceId: known } = await chrome.storage.local.get("instanceId");
    if (known) return known;
    const fresh = crypto.randomUUID();
    await chrome.storage.local.set({ instanceId: fresh });
    return fresh;
  })();
  return instanceIdPromise;
}

function browserInfo() {
  const ua = navigator.userAgent;
  const brands = navigator.userAgentData?.brands ?? [];
  const named = brands.find((b) => !/Not.?A.?Brand|^Chromium$/i.test(b.brand)) ?? brands.find((b) => b.brand === "Chromium");
  const version = /Chrome\/([\d.]+)/.exec(ua)?.[1] ?? named?.version ?? "";
  return { name: named?.brand ?? "Chromium", version, user_agent: ua };
}

export class Connection {
  /** @param {(op: string, params: object, timeoutMs: number) => Promise<object>} dispatch */
  constructor(dispatch) {
    this.dispatch = dispatch;
    this.ws = null;
    this.status = "disconnected"; // disconnected | connecting | connected | refused
    this.lastError = "";
    this.appState = { ai_web_pilot: false, capabilities: {} };
    this.target = null;
    this.attempt = 0;
    this.retryTimer = null;
    this.keepaliveTimer = null;
    this.opening = null;
    this.listeners = new Set();
  }

  onChange(fn) {
    this.listeners.add(fn);
  }

  snapshot() {
    return {
      status: this.status,
      lastError: this.lastError,
      port: this.target?.port ?? null,
      managed: this.target?.managed ?? false,
      appState: this.appState,
    };
  }

  emit() {
    for (const fn of this.listeners) fn(this.snapshot());
  }

  setStatus(status, lastError = "") {
    this.status = status;
    this.lastError = lastError;
    this.emit();
  }

  /** Open the socket unless one is open or opening; concurrent callers share one attempt. */
  connect() {
    if (this.ws && (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)) {
      return Promise.resolve();
    }
    this.opening ??= this.open().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  async open() {
    clearTimeout(this.retryTimer);
    this.target = await loadTarget();
    const ws = new WebSocket(`ws://127.0.0.1:${this.target.port}/ws`);
    this.ws = ws;
    this.setStatus("connecting");
    ws.onopen = async () => {
      const hello = {
        type: "hello",
        protocol: PROTOCOL_VERSION,
        extension_version: chrome.runtime.getManifest().version,
        extension_id: chrome.runtime.id,
        instance_id: await instanceId(),
        browser: browserInfo(),
      };
      if (this.target.managed && this.target.nonce) hello.managed_nonce = this.target.nonce;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (ev) => this.onFrame(ws, ev.data);
    ws.onclose = () => this.onClosed(ws);
    ws.onerror = () => {}; // onclose follows and schedules the retry
  }

  onFrame(ws, text) {
    const msg = parseFrame(text);
    if (!msg) return;
    switch (msg.type) {
      case "welcome":
        this.attempt = 0;
        this.appState = msg.state ?? this.appState;
        this.setStatus("connected");
        clearInterval(this.keepaliveTimer);
        this.keepaliveTimer = setInterval(() => this.send({ type: "ping", t: Date.now() }), KEEPALIVE_MS);
        break;
      case "refused":
        this.refusal = msg;
        this.setStatus("refused", msg.reason);
        break;
      case "state":
        this.appState = msg.state ?? this.appState;
        this.emit();
        break;
      case "command":
        this.run(ws, msg);
        break;
    }
  }

  async run(ws, msg) {
    let reply;
    try {
      reply = resultOk(msg.id, await this.dispatch(msg.op, msg.params, msg.timeout_ms ?? 10_000));
    } catch (err) {
      reply = resultErr(msg.id, err);
    }
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(reply));
  }

  send(msg) {
    if (this.ws?.readyState === WebSocket.OPEN && this.status === "connected") this.ws.send(JSON.stringify(msg));
  }

  onClosed(ws) {
    if (ws !== this.ws) return;
    this.ws = null;
    clearInterval(this.keepaliveTimer);
    const refused = this.status === "refused";
    if (!refused) this.setStatus("disconnected", this.lastError);
    const delay = refused ? REFUSED_BACKOFF_MS : BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** After the user changes the port in the popup. */
  async reconnect() {
    this.attempt = 0;
    const ws = this.ws;
    this.ws = null;
    ws?.close();
    await this.connect();
  }
}
