#!/usr/bin/env node
// Committed launcher so npm can link this command at install time, before the first build.
import module from "node:module";

// V8 code cache on disk (Node 22.1+; default folder under os.tmpdir(), NODE_COMPILE_CACHE moves it,
// NODE_DISABLE_COMPILE_CACHE=1 turns it off): later runs skip compiling dist/. It never throws;
// older Node has no such function and compiles as before.
module.enableCompileCache?.();
import("../dist/cli.js").catch((err) => {
  if (err?.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist/cli.js")) {
    console.error("This command is not built yet: run `npm run build` in the teammem checkout first.");
    process.exit(2);
  }
  throw err;
});
