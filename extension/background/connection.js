// @ts-check
// The link to the Tabpilot app: one WebSocket, commands pushed by the app, reconnect with backoff.
// Nothing is run before both sides proved the shared secret (auth.js).
import { appProof, extensionProof, keyOf, newNonce, normalizeCode } from "./auth.js";
import * as ext from "./ext.js";
import { forgetPairing as forgetStoredPairing, loadPairing, savePairing } from "./vault.js";
// Operations that change a page: the extension refuses them while the (authenticated) app says the
// pilot is off, as a second lock behind the app's own gate.
import { PAGE_CHANGING_OPS } from "./operations.js";
import {
  Codes,
  DEFAULT_PORT,
  PROTOCOL_VERSION,
  TPError,
  encodeFrame,
  parseFrame,
  resultErr,
  resultOk,
} from "./protocol.js";
import { isRefusal, retryDelay } from "./retry.js";
import { inOrder } from "./serial.js";
import * as trace from "./trace.js";

const KEEPALIVE_MS = 20_000; // a message every 20 s keeps an MV3 service worker alive (Chrome 116+)
export const WAKE_ALARM = "tabpilot-reconnect";

/** Where to connect: a managed browser's launch file wins, else the port the user set in the popup. */
async function loadTarget() {
  try {
    const res = await fetch(ext.runtime.getURL("managed.json"), { cache: "no-store" });
    if (res.ok) {
      const managed = await res.json();
      if (Number.isInteger(managed.port) && managed.nonce) return { port: managed.port, secret: managed.nonce, managed: true };
    }
  } catch {
    // not a managed browser
  }
  const { port } = await ext.storage.local.get({ port: DEFAULT_PORT });
  return { port, managed: false };
}

let instanceIdPromise = null;

/** This extension install's stable id; one promise so that concurrent first calls agree. */
function instanceId() {
  instanceIdPromise ??= (async () => {
    const { instanceId: known } = await ext.storage.local.get("instanceId");
    if (known) return known;
    const fresh = crypto.randomUUID();
    await ext.storage.local.set({ instanceId: fresh });
    return fresh;
  })();
  return instanceIdPromise;
}

const OS_NAMES = { linux: "Linux", win: "Windows", mac: "macOS", cros: "ChromeOS", android: "Android", openbsd: "OpenBSD", fuchsia: "Fuchsia" };

/** The operating system, so that the person can tell paired browsers apart in the app. */
async function osName() {
  try {
    const { os } = await ext.runtime.getPlatformInfo();
    return OS_NAMES[os] ?? os;
  } catch {
    return navigator.userAgentData?.platform ?? "";
  }
}

async function browserInfo() {
  const ua = navigator.userAgent;
  const brands = navigator.userAgentData?.brands ?? [];
  const named = brands.find((b) => !/Not.?A.?Brand|^Chromium$/i.test(b.brand)) ?? brands.find((b) => b.brand === "Chromium");
  const version = /Chrome\/([\d.]+)/.exec(ua)?.[1] ?? named?.version ?? "";
  return { name: named?.brand ?? "Chromium", version, os: await osName(), user_agent: ua };
}

export class Connection {
  /** @param {(op: string, params: object, timeoutMs: number) => Promise<object>} dispatch */
  constructor(dispatch) {
    this.dispatch = dispatch;
    this.ws = null;
    this.session = null; // {auth, key, clientNonce, verified}
    this.status = "disconnected"; // disconnected | connecting | connected | unpaired | waiting | refused
    this.lastError = "";
    this.appState = { ai_web_pilot: false, capabilities: {} };
    this.target = null;
    this.pairingCode = "";
    this.paired = false;
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
      paired: this.paired,
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
    const pairing = this.target.managed ? null : await loadPairing(); // the managed browser has its launch secret
    this.paired = !!pairing?.token;
    let auth = "none";
    let secret = "";
    if (this.target.managed) [auth, secret] = ["managed", this.target.secret];
    else if (pairing?.token) [auth, secret] = ["paired", pairing.token];
    else if (this.pairingCode) [auth, secret] = ["pairing", normalizeCode(this.pairingCode)];
    const session = { auth, key: secret ? await keyOf(secret) : null, clientNonce: newNonce(), verified: false, pairing };
    const ws = new WebSocket(`ws://127.0.0.1:${this.target.port}/ws`);
    this.ws = ws;
    this.session = session;
    this.setStatus("connecting");
    ws.onopen = async () => {
      const hello = {
        type: "hello",
        protocol: PROTOCOL_VERSION,
        extension_version: ext.runtime.getManifest().version,
        extension_id: ext.runtime.id,
        instance_id: await instanceId(),
        browser: await browserInfo(),
        client_nonce: session.clientNonce,
        auth,
      };
      if (auth === "paired") hello.pair_id = pairing.pair_id;
      ws.send(JSON.stringify(hello));
    };
    // Frames are handled one after another: a welcome after pairing awaits its proof check and the stored
    // pairing, and the app's first command, sent right after the welcome, must wait for that, not find the
    // link not yet connected and be dropped. (A command's own work is not awaited here: see run.)
    const frame = inOrder((/** @type {string} */ text) => this.onFrame(ws, session, text));
    ws.onmessage = (ev) => frame(ev.data);
    ws.onclose = () => this.onClosed(ws);
    ws.onerror = () => {}; // onclose follows and schedules the retry
  }

  async onFrame(ws, session, text) {
    if (ws !== this.ws) return;
    const msg = parseFrame(text);
    if (!msg) return;
    switch (msg.type) {
      case "challenge":
        await this.answerChallenge(ws, session, msg);
        break;
      case "welcome":
        if (!(await this.keepPairing(ws, session, msg))) return;
        if (!session.verified) return ws.close(); // no welcome without the app's proof
        this.attempt = 0;
        this.appState = msg.state ?? this.appState;
        this.setStatus("connected");
        clearInterval(this.keepaliveTimer);
        this.keepaliveTimer = setInterval(() => this.send({ type: "ping", t: Date.now() }), KEEPALIVE_MS);
        break;
      case "refused":
        await this.refused(ws, session, msg);
        break;
      case "state":
        if (session.verified && this.status === "connected") {
          this.appState = msg.state ?? this.appState;
          this.emit();
        }
        break;
      case "command":
        if (session.verified && this.status === "connected") this.run(ws, msg);
        break;
    }
  }

  /** After a code: check the app's proof (it knows the code too) and keep the token it gave this browser.
   * False when the app's proof is wrong (the socket is closed then). */
  async keepPairing(ws, session, msg) {
    if (session.auth !== "pairing" || !session.serverNonce) return true;
    const expected = await appProof(session.key, session.clientNonce, session.serverNonce);
    if (msg.app_proof !== expected) {
      this.setStatus("refused", `The program on port ${this.target.port} does not know the code: it is not the Tabpilot app.`);
      ws.close();
      return false;
    }
    session.verified = true;
    if (msg.pairing?.pair_id && msg.pairing?.token) {
      await savePairing({ pair_id: msg.pairing.pair_id, token: msg.pairing.token });
      this.pairingCode = "";
      this.paired = true;
    }
    return true;
  }

  async answerChallenge(ws, session, msg) {
    if (!session.key) return ws.close();
    session.serverNonce = msg.server_nonce;
    if (session.auth === "pairing") {
      // A code is short: this side proves first, and the app proves its knowledge in the welcome.
      ws.send(JSON.stringify({ type: "auth", proof: await extensionProof(session.key, session.clientNonce, msg.server_nonce) }));
      return;
    }
    const expected = await appProof(session.key, session.clientNonce, msg.server_nonce);
    if (!msg.app_proofs.includes(expected)) {
      this.refusal = { code: "impostor" };
      this.setStatus(
        "refused",
        `The program on port ${this.target.port} could not prove it is the Tabpilot app this browser is paired with.`,
      );
      return ws.close();
    }
    session.verified = true;
    ws.send(JSON.stringify({ type: "auth", proof: await extensionProof(session.key, session.clientNonce, msg.server_nonce) }));
  }

  async refused(ws, session, msg) {
    this.refusal = msg;
    if (msg.code === "unpaired") {
      if (session.auth === "paired") {
        await forgetStoredPairing(); // revoked by the app
        this.paired = false;
      }
      this.setStatus("unpaired", msg.reason);
      return;
    }
    if (msg.code === "busy" && msg.pairing && !(await this.keepPairing(ws, session, msg))) return;
    if (msg.code === "busy" && this.paired) {
      // Paired, but another browser is connected: this one connects by itself once that one leaves.
      this.setStatus("waiting", msg.reason);
      return;
    }
    if (session.auth === "pairing") this.pairingCode = ""; // a wrong or expired code is not retried
    const wrongCode = session.auth === "pairing" && msg.code === "bad_proof";
    this.setStatus("refused", wrongCode ? "That is not a code Tabpilot has open: check it and type it again." : msg.reason);
  }

  async run(ws, msg) {
    const marks = msg.trace === true ? trace.begin() : null;
    let reply;
    try {
      // A screenshot at a device's size emulates that device in the tab, which the page sees (resize
      // events): an emulation, refused with the pilot off as emulation.set is.
      const emulating = msg.op === "tab.screenshot" && msg.params?.device != null;
      if ((PAGE_CHANGING_OPS.has(msg.op) || emulating) && !this.appState.ai_web_pilot) {
        throw new TPError(Codes.AI_WEB_PILOT_DISABLED, "AI Web Pilot is off in the Tabpilot app.");
      }
      reply = resultOk(msg.id, await this.dispatch(msg.op, msg.params, msg.timeout_ms ?? 10_000));
    } catch (err) {
      reply = resultErr(msg.id, err);
    }
    if (marks) reply.trace = trace.end(marks);
    if (ws.readyState === WebSocket.OPEN) ws.send(encodeFrame(reply));
  }

  send(msg) {
    if (this.ws?.readyState === WebSocket.OPEN && this.status === "connected") this.ws.send(JSON.stringify(msg));
  }

  onClosed(ws) {
    if (ws !== this.ws) return;
    this.ws = null;
    clearInterval(this.keepaliveTimer);
    const refused = isRefusal(this.status);
    if (!refused) this.setStatus("disconnected", this.lastError);
    const delay = retryDelay(this.attempt, refused);
    this.attempt += 1;
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** After the user changes the port or types a pairing code in the popup. */
  async reconnect() {
    this.attempt = 0;
    const ws = this.ws;
    this.ws = null;
    ws?.close();
    await this.connect();
  }

  async pairWith(code) {
    this.pairingCode = normalizeCode(code);
    await this.reconnect();
  }

  async forgetPairing() {
    await forgetStoredPairing();
    await this.reconnect();
  }
}
