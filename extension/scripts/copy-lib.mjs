// Copies the extension's third-party scripts from node_modules into lib/ (gitignored), where the
// extension loads them from. Runs as npm's postinstall, so `npm ci` in extension/ (scripts/bootstrap)
// leaves a ready extension.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const FILES = [["node_modules/axe-core/axe.min.js", "lib/axe.min.js"]];

mkdirSync(join(root, "lib"), { recursive: true });
for (const [from, to] of FILES) {
  copyFileSync(join(root, from), join(root, to));
  console.log(`copied ${from} -> ${to}`);
}
