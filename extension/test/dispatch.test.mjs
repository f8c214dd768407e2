import assert from "node:assert/strict";
import { test } from "node:test";

import { dispatch } from "../background/commands.js";

// No `chrome` here: a handler that ran would fail on it, so these answers come before any handler.

test("an operation without a definition is not_supported", async () => {
  for (const op of ["dom.levitate", "constructor", "toString", "scrape.probe"]) {
    await assert.rejects(dispatch(op, {}, 1000), (err) => err.code === "not_supported" && err.message.includes(`'${op}'`), op);
  }
});

test("params are checked before the handler runs", async () => {
  await assert.rejects(dispatch("dom.click", { selector: "#go", force: true }, 1000), {
    code: "invalid_params",
    message: /^dom\.click: unknown parameter 'force'/,
  });
  await assert.rejects(dispatch("dom.click", {}, 1000), { code: "invalid_params", message: "dom.click: 'selector' is required." });
  await assert.rejects(dispatch("tab.navigate", { url: "https://example.com/", wait_until: "idle" }, 1000), {
    code: "invalid_params",
  });
});
