// @ts-check
// The browser's extension APIs, as the background modules use them: they reach `chrome` only through
// here (eslint enforces it). Nothing touches `chrome` before a function is called or an event is
// used, so every background module can be imported in node, where there is no `chrome`, and its
// pure parts tested; a test that needs the browser sets `globalThis.chrome` to a fake first.

export const runtime = {
  get id() {
    return chrome.runtime.id;
  },
  /** @param {string} path */
  getURL: (path) => chrome.runtime.getURL(path),
  getManifest: () => chrome.runtime.getManifest(),
  getPlatformInfo: () => chrome.runtime.getPlatformInfo(),
  get onMessage() {
    return chrome.runtime.onMessage;
  },
  get onStartup() {
    return chrome.runtime.onStartup;
  },
  get onInstalled() {
    return chrome.runtime.onInstalled;
  },
};

export const tabs = {
  /** @param {number} tabId @returns {Promise<chrome.tabs.Tab>} */
  get: (tabId) => chrome.tabs.get(tabId),
  /** @param {chrome.tabs.QueryInfo} query @returns {Promise<chrome.tabs.Tab[]>} */
  query: (query) => chrome.tabs.query(query),
  /** @param {number} tabId @param {chrome.tabs.UpdateProperties} changes */
  update: (tabId, changes) => chrome.tabs.update(tabId, changes),
  /** @param {chrome.tabs.CreateProperties} properties @returns {Promise<chrome.tabs.Tab>} */
  create: (properties) => chrome.tabs.create(properties),
  /** @param {number} tabId @returns {Promise<void>} */
  remove: (tabId) => chrome.tabs.remove(tabId),
  /**
   * A message to the content scripts of one frame; resolves with the first answer.
   * @param {number} tabId @param {unknown} message @param {number} frameId @returns {Promise<unknown>}
   */
  sendMessage: (tabId, message, frameId) => chrome.tabs.sendMessage(tabId, message, { frameId }),
  /** @param {number} tabId */
  goBack: (tabId) => chrome.tabs.goBack(tabId),
  /** @param {number} tabId */
  goForward: (tabId) => chrome.tabs.goForward(tabId),
  /** @param {number} tabId */
  reload: (tabId) => chrome.tabs.reload(tabId),
  /** @param {number} windowId @param {chrome.extensionTypes.ImageDetails} options @returns {Promise<string>} */
  captureVisibleTab: (windowId, options) => chrome.tabs.captureVisibleTab(windowId, options),
  get onActivated() {
    return chrome.tabs.onActivated;
  },
  get onUpdated() {
    return chrome.tabs.onUpdated;
  },
  get onRemoved() {
    return chrome.tabs.onRemoved;
  },
  get onCreated() {
    return chrome.tabs.onCreated;
  },
  get onDetached() {
    return chrome.tabs.onDetached;
  },
  get onReplaced() {
    return chrome.tabs.onReplaced;
  },
};

export const scripting = {
  /**
   * @template {unknown[]} Args
   * @template Result
   * @param {chrome.scripting.ScriptInjection<Args, Result>} injection
   */
  executeScript: (injection) => chrome.scripting.executeScript(injection),
};

// chrome.debugger: `debugger` is a reserved word, hence the name.
export const devtools = {
  /** @param {chrome.debugger.Debuggee} target @param {string} version */
  attach: (target, version) => chrome.debugger.attach(target, version),
  /** @param {chrome.debugger.Debuggee} target */
  detach: (target) => chrome.debugger.detach(target),
  /**
   * CDP answers are not typed here: each caller reads the fields of its method's result.
   * @param {chrome.debugger.Debuggee} target @param {string} method @param {object} [params]
   * @returns {Promise<any>}
   */
  sendCommand: (target, method, params) => chrome.debugger.sendCommand(target, method, params),
  get onDetach() {
    return chrome.debugger.onDetach;
  },
  /** CDP events of the attached tabs (Input.dragIntercepted, Page's dialog events). */
  get onEvent() {
    return chrome.debugger.onEvent;
  },
};

export const windows = {
  /** @param {number} windowId @param {chrome.windows.UpdateInfo} changes */
  update: (windowId, changes) => chrome.windows.update(windowId, changes),
  get onFocusChanged() {
    return chrome.windows.onFocusChanged;
  },
  get onBoundsChanged() {
    return chrome.windows.onBoundsChanged;
  },
};

export const cookies = {
  /** @param {chrome.cookies.GetAllDetails} details @returns {Promise<chrome.cookies.Cookie[]>} */
  getAll: (details) => chrome.cookies.getAll(details),
  /** @param {chrome.cookies.SetDetails} details */
  set: (details) => chrome.cookies.set(details),
  /** @param {chrome.cookies.CookieDetails} details */
  remove: (details) => chrome.cookies.remove(details),
};

export const storage = {
  get local() {
    return chrome.storage.local;
  },
  get session() {
    return chrome.storage.session;
  },
};

export const webNavigation = {
  /** @param {chrome.webNavigation.GetFrameDetails} details */
  getFrame: (details) => chrome.webNavigation.getFrame(details),
  /** @param {chrome.webNavigation.GetAllFrameDetails} details */
  getAllFrames: (details) => chrome.webNavigation.getAllFrames(details),
  get onBeforeNavigate() {
    return chrome.webNavigation.onBeforeNavigate;
  },
  get onCommitted() {
    return chrome.webNavigation.onCommitted;
  },
  get onDOMContentLoaded() {
    return chrome.webNavigation.onDOMContentLoaded;
  },
  get onCompleted() {
    return chrome.webNavigation.onCompleted;
  },
  get onErrorOccurred() {
    return chrome.webNavigation.onErrorOccurred;
  },
  get onReferenceFragmentUpdated() {
    return chrome.webNavigation.onReferenceFragmentUpdated;
  },
  get onHistoryStateUpdated() {
    return chrome.webNavigation.onHistoryStateUpdated;
  },
};

export const webRequest = {
  get onBeforeRequest() {
    return chrome.webRequest.onBeforeRequest;
  },
  get onCompleted() {
    return chrome.webRequest.onCompleted;
  },
  get onErrorOccurred() {
    return chrome.webRequest.onErrorOccurred;
  },
};

export const action = {
  /** @param {chrome.action.BadgeTextDetails} details */
  setBadgeText: (details) => chrome.action.setBadgeText(details),
  /** @param {chrome.action.BadgeColorDetails} details */
  setBadgeBackgroundColor: (details) => chrome.action.setBadgeBackgroundColor(details),
  /** @param {chrome.action.TitleDetails} details */
  setTitle: (details) => chrome.action.setTitle(details),
};

export const alarms = {
  /** @param {string} name @param {chrome.alarms.AlarmCreateInfo} info */
  create: (name, info) => chrome.alarms.create(name, info),
  get onAlarm() {
    return chrome.alarms.onAlarm;
  },
};
