// The allow-list of operations the app may ask for. Anything else is refused.
import * as cdp from "./cdp.js";
import { toContent } from "./content.js";
import { executeJs } from "./execute.js";
import { navigate } from "./navigate.js";
import { Codes, TPError } from "./protocol.js";
import { assertReadable, getTab, listTabs, setTracked, targetTab } from "./tabs.js";

async function screenshot(tab, { format = "png", quality = 80, full_page: fullPage = false }) {
  assertReadable(tab);
  const params = { format, captureBeyondViewport: fullPage };
  if (format === "jpeg") params.quality = quality;
  const metrics = await cdp.send(tab.id, "Page.getLayoutMetrics");
  const box = fullPage ? metrics.cssContentSize : metrics.cssLayoutViewport;
  const width = Math.ceil(box.width ?? box.clientWidth);
  const height = Math.ceil(box.height ?? box.clientHeight);
  if (fullPage) params.clip = { x: 0, y: 0, width, height, scale: 1 };
  const { data } = await cdp.send(tab.id, "Page.captureScreenshot", params);
  return { data, width, height };
}

async function track(params) {
  if (params.clear) {
    await setTracked(null);
    return { tracked: null };
  }
  const tab = Number.isInteger(params.tab_id) ? await getTab(params.tab_id) : await targetTab({});
  await setTracked(tab.id);
  return { tracked: { tab_id: tab.id, url: tab.url ?? "", title: tab.title ?? "" } };
}

export const OPS = {
  "page.info": async (p) => toContent(await targetTab(p), "page.info", p),
  "dom.query": async (p) => toContent(await targetTab(p), "dom.query", p),
  "tabs.list": async () => ({ tabs: await listTabs() }),
  "tabs.track": track,
  "tab.navigate": async (p) => navigate(await targetTab(p), p),
  "js.execute": async (p) => {
    const tab = await targetTab(p);
    assertReadable(tab);
    return executeJs(tab, p);
  },
  "tab.screenshot": async (p) => screenshot(await targetTab(p), p),
};

export async function dispatch(op, params) {
  const handler = OPS[op];
  if (!handler) throw new TPError(Codes.NOT_SUPPORTED, `This extension does not know the operation '${op}'.`);
  return handler(params ?? {});
}
