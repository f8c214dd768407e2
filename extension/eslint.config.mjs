// Lint of the extension's code (npm run lint). Type errors are tsc's job (npm run typecheck).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "lib/"] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022 },
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
    },
  },
  {
    files: ["background/**/*.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.serviceworker, ...globals.webextensions } },
    rules: {
      "no-restricted-globals": ["error", { name: "chrome", message: "Reach the browser through ./ext.js, so the module loads in node." }],
    },
  },
  {
    files: ["background/ext.js"],
    rules: { "no-restricted-globals": "off" },
  },
  {
    // background/ functions that executeScript runs in the page (a11y.js runAxe, crop.js boxOf,
    // serialize.js toJsonSafe, state.js readStorages/writeStorages) use the page's globals.
    files: ["background/a11y.js", "background/crop.js", "background/serialize.js", "background/state.js"],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ["content/**/*.js", "capture/**/*.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.browser, ...globals.webextensions } },
  },
  {
    files: ["popup/**/*.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.browser, ...globals.webextensions } },
  },
  {
    files: ["test/**/*.mjs", "scripts/**/*.mjs", "eslint.config.mjs"],
    languageOptions: { sourceType: "module", globals: globals.node },
  },
];
