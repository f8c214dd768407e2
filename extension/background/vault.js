// @ts-check
// The pairing token, kept where only the extension's own pages and worker can read it: IndexedDB of the
// extension's origin. chrome.storage.local would do for persistence, but content scripts (which run
// inside web pages) can read it too, and the token is what lets a browser drive the app.
import * as ext from "./ext.js";
const DB = "tabpilot";
const STORE = "vault";

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function run(mode, act) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = act(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

let migrated = null;

/** Pairings made by earlier versions lived in chrome.storage.local: move them here, once. */
function migrate() {
  migrated ??= (async () => {
    const { pairing } = await ext.storage.local.get("pairing");
    if (pairing) {
      await run("readwrite", (store) => store.put(pairing, "pairing"));
      await ext.storage.local.remove("pairing");
    }
  })().catch(() => {});
  return migrated;
}

export async function loadPairing() {
  await migrate();
  return (await run("readonly", (store) => store.get("pairing"))) ?? null;
}

export async function savePairing(pairing) {
  await migrate();
  await run("readwrite", (store) => store.put(pairing, "pairing"));
}

export async function forgetPairing() {
  await migrate();
  await run("readwrite", (store) => store.delete("pairing"));
}
