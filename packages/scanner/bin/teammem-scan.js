#!/usr/bin/env node
// Committed launcher so npm can link this command at install time, before the first build.
import("../dist/cli.js").catch((err) => {
  if (err?.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist/cli.js")) {
    console.error("This command is not built yet: run `npm run build` in the teammem checkout first.");
    process.exit(2);
  }
  throw err;
});
