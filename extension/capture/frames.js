// @ts-check
// Capture, page side (MAIN world): how many animation-frame callbacks the page has waiting.
// An action's settle (content/acts.js) tells what the action changed once the page is quiet; a page
// that draws its change in the next frame (a click handler that calls requestAnimationFrame, as Elm,
// Mithril and hand-made menus do) changes nothing until that frame. The managed browser does not hold
// tasks back until the next frame after an input (browser/managed.py), so the settle would be done
// before it: it waits for one frame when callbacks are waiting. The count goes to the isolated world
// (capture/relay.js) once per task in which it changed, at once, outside the batched capture.
// Limit: the page can see that requestAnimationFrame is not the browser's own function.
(() => {
  const hub = window.__tabpilotCaptureHub;
  if (!hub || hub.frames) return;
  hub.frames = true;
  const request = window.requestAnimationFrame;
  const cancel = window.cancelAnimationFrame;
  if (typeof request !== "function" || typeof cancel !== "function") return;
  const apply = hub.apply;
  /** @type {Set<number>} */
  const waiting = new Set();
  let told = 0;
  let telling = false;

  const tell = () => {
    telling = false;
    if (waiting.size === told) return;
    told = waiting.size;
    hub.signal({ frames: told });
  };
  const changed = () => {
    if (telling) return;
    telling = true;
    hub.native.queueMicrotask(tell);
  };

  const wrapped = {
    /** @param {FrameRequestCallback} callback */
    requestAnimationFrame(callback) {
      // Not a function: the browser's own TypeError, as if nothing stood between.
      if (typeof callback !== "function") return apply(request, window, [callback]);
      let id = 0;
      try {
        id = apply(request, window, [
          /** @param {number} time */
          function (time) {
            waiting.delete(id);
            changed();
            return apply(callback, this, [time]);
          },
        ]);
        waiting.add(id);
        changed();
      } catch (err) {
        if (!id) throw err;
      }
      return id;
    },
    /** @param {number} id */
    cancelAnimationFrame(id) {
      if (waiting.delete(id)) changed();
      return apply(cancel, window, [id]);
    },
  };
  try {
    Object.defineProperty(wrapped.requestAnimationFrame, "length", { value: request.length });
    Object.defineProperty(wrapped.cancelAnimationFrame, "length", { value: cancel.length });
    window.requestAnimationFrame = wrapped.requestAnimationFrame;
    window.cancelAnimationFrame = wrapped.cancelAnimationFrame;
  } catch {
    // a frozen window property: the settle goes without (a frame-drawn change may then be missed)
  }
})();
