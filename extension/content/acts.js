// @ts-check
// The page side of the interact actions that content/elements.js does not cover: what an action
// changed (a watch started just before it, read once it settled), checkboxes, file inputs, waiting for
// text, the address of a media element to download, and finding overlays to dismiss. Registers into the
// op table content/agent.js created. Elements are found only through the shared lookup (lib.ready,
// lib.queryAll), so refs and frames reach these ops too.
(() => {
  const tp = globalThis.__tabpilot;
  if (!tp?.ops || tp.ops["page.settle"]) return;
  const { PageError, clean, queryAll, visible } = tp.lib;

  const WATCH_MS = 10_000; // a watch nobody reads stops by itself
  const SNIPPET = 40;
  const MAX_SNIPPETS = 2;
  const OURS = /^data-tabpilot-/;
  // A mutation seen this soon after the action ended came from its own task (its handlers ran then).
  const SYNC_MS = 1;
  // How long a settle waits for a frame the page asked for (three at 60 Hz; a hidden page draws none).
  const FRAME_WAIT_MS = 50;

  // -- what an action changed --------------------------------------------------------------------
  // A MutationObserver started just before the action (and the Navigation API's `navigate` event, which
  // says at once that the action started a cross-document navigation), read when the action settled:
  // the page has been quiet for a short window, or a navigation is under way.

  /** @type {null | {observer: MutationObserver, url: string, title: string, last: number, started: number, mutated: boolean, added: number, removed: number, attrs: Set<Element>, texts: string[], gone: string[], navigating: string, timer: number, stop: () => void}} */
  let watch = null;

  function countElements(node) {
    return node.nodeType === 1 ? 1 + /** @type {Element} */ (node).getElementsByTagName("*").length : 0;
  }

  function snippet(text) {
    const s = clean(text);
    return s.length > SNIPPET ? `${s.slice(0, SNIPPET - 1)}…` : s;
  }

  function note(list, text) {
    const s = snippet(text);
    if (s && list.length < MAX_SNIPPETS * 4 && !list.includes(s)) list.push(s);
  }

  function textOfNode(node) {
    if (node.nodeType === 3) {
      const parent = node.parentElement;
      return parent && !visible(parent) ? "" : node.data;
    }
    if (node.nodeType !== 1) return "";
    const el = /** @type {HTMLElement} */ (node);
    if (/^(script|style|template|noscript)$/.test(el.localName) || !el.isConnected || !visible(el)) return "";
    return el.innerText ?? el.textContent ?? "";
  }

  function startWatch() {
    watch?.stop();
    const w = {
      url: location.href,
      title: document.title,
      started: performance.now(),
      last: performance.now(),
      mutated: false,
      added: 0,
      removed: 0,
      attrs: new Set(),
      texts: [],
      gone: [],
      navigating: "",
      timer: 0,
      observer: new MutationObserver((records) => {
        w.last = performance.now();
        // Our own marks (data-tabpilot-*) are no sign of the page's doing.
        if (records.some((r) => r.type !== "attributes" || !OURS.test(r.attributeName ?? ""))) w.mutated = true;
        for (const r of records) {
          if (r.type === "childList") {
            for (const n of r.addedNodes) {
              w.added += countElements(n);
              note(w.texts, textOfNode(n));
            }
            for (const n of r.removedNodes) {
              w.removed += countElements(n);
              if (n.nodeType === 3) note(w.gone, /** @type {Text} */ (n).data);
              else if (n.nodeType === 1) note(w.gone, /** @type {Element} */ (n).textContent ?? "");
            }
          } else if (r.type === "characterData") {
            note(w.texts, textOfNode(r.target));
          } else if (r.type === "attributes" && !OURS.test(r.attributeName ?? "")) {
            w.attrs.add(/** @type {Element} */ (r.target));
          }
        }
      }),
      stop: () => {
        w.observer.disconnect();
        clearTimeout(w.timer);
        globalThis.navigation?.removeEventListener("navigate", onNavigate);
        if (watch === w) watch = null;
      },
    };
    const onNavigate = (/** @type {any} */ e) => {
      if (e.hashChange || e.navigationType === "reload" || !e.destination?.url) return;
      if (!e.destination.sameDocument) w.navigating = e.destination.url;
    };
    w.observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    globalThis.navigation?.addEventListener("navigate", onNavigate);
    w.timer = setTimeout(w.stop, WATCH_MS);
    watch = w;
    return w;
  }

  /** One line: what the watch saw (url, title, elements, text), or that nothing visible changed. */
  function summary(w, withText) {
    const parts = [];
    if (location.href !== w.url) parts.push(`url ${location.href}`);
    if (document.title !== w.title) parts.push(`title '${snippet(document.title)}'`);
    if (w.added) parts.push(`+${w.added} element${w.added === 1 ? "" : "s"}`);
    if (w.removed) parts.push(`-${w.removed} element${w.removed === 1 ? "" : "s"}`);
    // Text that was replaced by itself (a re-render) is no news.
    const appeared = w.texts.filter((t) => !w.gone.includes(t)).slice(0, MAX_SNIPPETS);
    if (appeared.length && withText) parts.push(`text ${appeared.map((t) => `'${t}'`).join(", ")} appeared`);
    const attrs = [...w.attrs].filter((el) => el.isConnected).length;
    if (attrs && !w.added && !w.removed && !(appeared.length && withText)) parts.push(`${attrs} element${attrs === 1 ? "" : "s"} changed attributes`);
    return parts.join(", ");
  }

  /**
   * Resolves once the page is quiet after the action, which ended at `from` (performance.now() time),
   * or after `timeoutMs`. A page that changes after the action's own task (a timer, a frame, a server's
   * answer: changes in pieces) is waited for until no mutation came for `quietMs`, counted from the last
   * one. A page that changed nothing, or only within the action's own task (a handler's synchronous
   * work), is done `idleMs` after the action. Either way at least one task runs first, so tasks the
   * action queued (a handler's setTimeout(0), a form's submission) have run: what they change counts.
   */
  function quiet(w, from, quietMs, idleMs, timeoutMs) {
    const ends = performance.now() + timeoutMs;
    let framed = false;
    return new Promise((resolve) => {
      const check = () => {
        const now = performance.now();
        if (w.navigating) return resolve(undefined);
        if (!framed && (globalThis.__tabpilotFrames?.waiting ?? 0) > 0) {
          // The page asked for an animation frame (capture/frames.js): what it draws there is the
          // action's doing too. Ours runs after the page's callbacks of that frame; a hidden page draws
          // no frames, hence the bound.
          framed = true;
          return nextFrame(check, Math.min(FRAME_WAIT_MS, Math.max(0, ends - now)));
        }
        const later = w.mutated && w.last > from + SYNC_MS;
        const wait = (later ? w.last + quietMs : from + idleMs) - now;
        if (wait <= 0 || now >= ends) return resolve(undefined);
        // Whole milliseconds, at least one: a timer's delay is cut to whole milliseconds (0.7 becomes 0),
        // so a shorter one fires before it is due and is set again, and a chain of timers set from timers
        // is held to 4 ms each after the fifth.
        setTimeout(check, Math.max(1, Math.ceil(Math.min(wait, ends - now))));
      };
      nextTask(check);
    });
  }

  // One task turn, queued behind the tasks the page queued so far (a handler's setTimeout(0) included).
  // In a person's Chrome the page's tasks wait after an input event until the next frame is drawn, so
  // this turn ends after that frame; the managed browser runs them when due (quiet() then waits for a
  // frame only when the page asked for one).
  const channel = new MessageChannel();
  /** @type {(() => void)[]} */
  const queued = [];
  channel.port1.onmessage = () => queued.shift()?.();

  /** @param {() => void} fn */
  function nextTask(fn) {
    queued.push(fn);
    channel.port2.postMessage(0);
  }

  /** `fn` after the page's next frame (its animation-frame callbacks and their microtasks), or after `ms`. */
  function nextFrame(fn, ms) {
    let done = false;
    const go = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(go, ms);
    requestAnimationFrame(() => nextTask(go));
  }

  async function pageWatch() {
    startWatch();
    return {};
  }

  /**
   * After an action: `{navigating}` when it started a cross-document navigation, else `{changed}` once the
   * page was quiet for `quiet_ms` (bounded by `timeout_ms`). With `hit`, the click guard's verdict too;
   * with `no_text`, no text is quoted (after fill and type: what appeared may be what was typed).
   */
  async function pageSettle(p) {
    const hit = p.hit ? tp.ops["dom.hit"]?.({}) : undefined;
    const w = watch;
    if (!w) return { changed: "", hit };
    const left = Math.max(0, Number(p.timeout_ms) || 0);
    const quietMs = Math.max(0, Number(p.quiet_ms) || 0);
    const idleMs = Math.min(quietMs, Math.max(0, Number(p.idle_ms ?? quietMs) || 0));
    // A click's guard saw when it ended; other actions (keys, fill) ended just before this was asked.
    const from = Math.min(performance.now(), hit?.at || performance.now());
    await quiet(w, from, quietMs, idleMs, Math.min(left, Number(p.max_ms) || left));
    if (w.navigating) return { navigating: w.navigating, hit };
    return { changed: summary(w, !p.no_text), hit };
  }

  tp.lib.watch = startWatch;

  // -- checkboxes -------------------------------------------------------------------------------------

  const CHECK_ROLES = /^(checkbox|radio|switch|menuitemcheckbox|menuitemradio)$/;
  let marks = 0;

  /** A selector for exactly `el` (a data attribute of ours), so a trusted click can be aimed at it. */
  function mark(el, kind) {
    marks += 1;
    const value = `${kind}-${marks}`;
    el.setAttribute(`data-tabpilot-${kind}`, value);
    return `[data-tabpilot-${kind}="${value}"]`;
  }

  function checkedState(el) {
    if (el.localName === "input" && /^(checkbox|radio)$/i.test(el.type)) return el.checked;
    const aria = el.getAttribute("aria-checked");
    return aria === "true" || aria === "mixed";
  }

  function checkKind(el) {
    if (el.localName === "input" && /^(checkbox|radio)$/i.test(el.type)) return el.type.toLowerCase();
    const role = el.getAttribute("role") ?? "";
    return CHECK_ROLES.test(role) ? role : "";
  }

  /**
   * dom.check's page side: is the first match already checked (unchecked)? If not, what to click: the
   * element itself, or — a styled checkbox whose native input is hidden — the label that toggles it.
   */
  async function checkState(p) {
    const want = p.checked !== false;
    const { el } = await tp.lib.ready(p, "check", {});
    const kind = checkKind(el);
    if (!kind) {
      throw new PageError("invalid_params", `'${p.selector}' is a <${el.localName}>, not a checkbox, radio button or role=checkbox element.`, {
        selector: p.selector,
      });
    }
    const now = checkedState(el);
    if (now === want) return { kind, checked: now, already: true };
    if (!want && /radio/.test(kind)) {
      throw new PageError("invalid_params", `'${p.selector}' is a radio button: it is unchecked by checking another one of its group.`, {
        selector: p.selector,
      });
    }
    if (p.verify) return { kind, checked: now, already: false };
    let target = el;
    if (!visible(el) && el.labels?.length) target = Array.from(el.labels).find((l) => visible(l)) ?? el;
    return { kind, checked: now, already: false, target: target === el ? "" : mark(target, "target") };
  }

  /** Waits (up to timeout_ms) until the first match has the wanted state, after the click. */
  async function checkWait(p) {
    const want = p.checked !== false;
    const el = queryAll(p.selector)[0];
    if (!el) throw new PageError("element_not_found", `'${p.selector}' went away after the click.`, { selector: p.selector });
    const done = await tp.lib.waitFor(() => ({ ok: checkedState(el) === want }), Math.max(0, Number(p.timeout_ms) || 0));
    if (!done.ok) {
      throw new PageError("timeout", `Clicking '${p.selector}' did not ${want ? "check" : "uncheck"} it (the page kept its state).`, {
        selector: p.selector,
        reason: "state unchanged",
      });
    }
    return { checked: want };
  }

  // -- file inputs ------------------------------------------------------------------------------------

  function bytesOf(b64) {
    const raw = atob(b64);
    const out = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  /** Sets a file input's files (a DataTransfer, as a drop would) and fires input and change. */
  async function setFiles(p) {
    const files = Array.isArray(p.files) ? p.files : [];
    const { el: found } = await tp.lib.ready(p, "upload", { enabled: true });
    const el = found.localName === "label" && found.control ? found.control : found;
    if (el.localName !== "input" || el.type !== "file") {
      throw new PageError("invalid_params", `'${p.selector}' is a <${el.localName}>, not an <input type=file> (or its label).`, {
        selector: p.selector,
      });
    }
    if (files.length > 1 && !el.multiple) {
      throw new PageError("invalid_params", `'${p.selector}' takes one file; it is not a multiple file input.`, { selector: p.selector });
    }
    const dt = new DataTransfer();
    for (const f of files) dt.items.add(new File([bytesOf(String(f.content_base64 ?? ""))], String(f.name), { type: String(f.mime ?? "") }));
    if (p.watch) startWatch();
    el.files = dt.files;
    el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    el.dispatchEvent(new Event("change", { bubbles: true, composed: true }));
    return { files: Array.from(el.files, (f) => ({ name: f.name, size: f.size })) };
  }

  // -- waiting for text --------------------------------------------------------------------------------

  async function waitText(p) {
    const text = String(p.text ?? "");
    if (!text.trim()) throw new PageError("invalid_params", "'text' must be non-empty.", { param: "text" });
    const wanted = clean(text);
    const left = Math.max(0, Number(p.timeout_ms) || 0);
    const seen = await tp.lib.waitFor(() => ({ ok: clean(document.body?.innerText ?? "").includes(wanted) }), left);
    if (seen.ok) return { text: wanted };
    throw new PageError("timeout", `The text '${snippet(wanted)}' did not appear within ${Math.round(Number(p.budget_ms) || left)} ms.`, {
      text: snippet(wanted),
    });
  }

  // -- a media element's address (download) ----------------------------------------------------------

  async function mediaSource(p) {
    const { el } = await tp.lib.ready(p, "download", {});
    const media = /** @type {any} */ (el);
    const raw =
      media.currentSrc ||
      media.src ||
      media.href ||
      el.getAttribute("data-src") ||
      el.querySelector("source[src]")?.getAttribute("src") ||
      (el.localName === "object" ? el.getAttribute("data") : "") ||
      "";
    if (!raw) {
      throw new PageError("invalid_params", `'${p.selector}' (a <${el.localName}>) has no address to download (src, href or <source>).`, {
        selector: p.selector,
      });
    }
    return { url: new URL(raw, document.baseURI).href, name: el.getAttribute("download") || "" };
  }

  // -- overlays ----------------------------------------------------------------------------------------

  const CONSENT = /cookie|consent|gdpr|privacy|tracking/i;
  const ACCEPT = /^(accept|accept all|allow all|agree|i agree|ok|okay|got it|i understand|continue|allow|yes|close|dismiss|no thanks|reject all|×|x|✕|✖)$/i;
  const CLOSE_LABEL = /close|dismiss|schließen|fermer|cerrar/i;
  const KNOWN = [
    "#onetrust-banner-sdk", "#CybotCookiebotDialog", ".cc-window", "#cookie-banner", ".cookie-banner",
    "#cookie-notice", ".cookie-notice", "#cookieConsent", ".cookie-consent", "[id*=cookie][class*=banner]",
  ];

  function covers(el) {
    const style = getComputedStyle(el);
    if (style.position !== "fixed" && style.position !== "sticky") return false;
    const r = el.getBoundingClientRect();
    const area = Math.max(0, Math.min(r.right, innerWidth) - Math.max(r.left, 0)) * Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
    return area >= 0.5 * innerWidth * innerHeight;
  }

  function describeOverlay(el) {
    const label = el.getAttribute("aria-label") || el.querySelector("h1,h2,h3,[role=heading]")?.textContent || el.textContent || "";
    const DIALOG = "dialog,[role=dialog],[role=alertdialog],[aria-modal=true]";
    const dialog = el.matches(DIALOG) ? el : el.querySelector(DIALOG);
    const named = dialog?.getAttribute("aria-label") || label;
    const kind = CONSENT.test(`${el.id} ${el.className} ${label}`) ? "cookie banner" : dialog ? "dialog" : "overlay";
    return `${kind} '${snippet(kind === "dialog" ? named : label)}'`;
  }

  function closeButton(el) {
    const buttons = Array.from(el.querySelectorAll("button, [role=button], a, input[type=button], input[type=submit]")).filter((b) => visible(b));
    const named = (b) => clean(b.getAttribute("aria-label") || b.getAttribute("title") || b.value || b.textContent || "");
    return (
      buttons.find((b) => ACCEPT.test(named(b)) && /accept|agree|allow|ok|got it|understand/i.test(named(b))) ??
      buttons.find((b) => ACCEPT.test(named(b))) ??
      buttons.find((b) => CLOSE_LABEL.test(b.getAttribute("aria-label") || b.getAttribute("title") || "")) ??
      null
    );
  }

  /** The overlays in the way: consent banners, open modal dialogs, fixed layers over most of the viewport. */
  function overlaysNow() {
    const found = new Set();
    for (const sel of KNOWN) for (const el of document.querySelectorAll(sel)) if (visible(el)) found.add(el);
    for (const el of document.querySelectorAll("dialog[open], [aria-modal=true], [role=dialog], [role=alertdialog]")) if (visible(el)) found.add(el);
    for (const el of document.body ? document.body.querySelectorAll("*") : []) {
      if (found.has(el) || !(el instanceof HTMLElement) || !visible(el)) continue;
      const style = getComputedStyle(el);
      if (style.position !== "fixed" && style.position !== "sticky") continue;
      if (covers(el) || CONSENT.test(`${el.id} ${el.className}`)) found.add(el);
    }
    // Keep the outermost: a dialog inside a backdrop is closed with its backdrop.
    return [...found].filter((el) => ![...found].some((other) => other !== el && other.contains(el)));
  }

  let overlayList = [];

  function stacking(el) {
    const z = Number.parseInt(getComputedStyle(el).zIndex, 10);
    return Number.isFinite(z) ? z : 0;
  }

  /**
   * dom.overlays: each overlay, top-most first (z-index, then later in the document), with a selector of
   * ours for its accept or close button when it has one. One without a button is hidden at once (`hidden`):
   * it would only cover the buttons of the others.
   */
  async function findOverlays() {
    const found = overlaysNow();
    const order = new Map(found.map((el, i) => [el, i]));
    overlayList = found.sort((a, b) => stacking(b) - stacking(a) || order.get(b) - order.get(a));
    return {
      overlays: overlayList.map((el) => {
        const what = describeOverlay(el);
        const button = closeButton(el);
        if (!button) {
          el.style.setProperty("display", "none", "important");
          return { what, button: "", label: "", hidden: true };
        }
        return { what, button: mark(button, "dismiss"), label: snippet(button.textContent || button.getAttribute("aria-label") || "") };
      }),
    };
  }

  /**
   * dom.overlays_close: after the clicks. Overlays still shown are closed the hard way: a <dialog> with
   * close(), anything else hidden (display:none) — and a page whose scrolling the overlay had locked
   * scrolls again. Answers each overlay's fate, in the order findOverlays gave them.
   */
  async function closeOverlays() {
    const fates = overlayList.map((el) => {
      if (el.style.getPropertyValue("display") === "none" && el.style.getPropertyPriority("display") === "important") return "hidden";
      if (!el.isConnected || !visible(el)) return "gone";
      if (el instanceof HTMLDialogElement && el.open) el.close();
      else el.style.setProperty("display", "none", "important");
      return "hidden";
    });
    for (const root of [document.documentElement, document.body]) {
      if (root && getComputedStyle(root).overflow === "hidden") root.style.setProperty("overflow", "auto", "important");
    }
    overlayList = [];
    for (const el of document.querySelectorAll("[data-tabpilot-dismiss]")) el.removeAttribute("data-tabpilot-dismiss");
    return { fates };
  }

  Object.assign(tp.ops, {
    "page.watch": pageWatch,
    "page.settle": pageSettle,
    "dom.check_state": checkState,
    "dom.check_wait": checkWait,
    "dom.upload": setFiles,
    "dom.wait_text": waitText,
    "dom.media_src": mediaSource,
    "dom.overlays": findOverlays,
    "dom.overlays_close": closeOverlays,
  });
})();
