#!/usr/bin/env node
// Entry point of the `teammem-server` binary: hands the process's argv and env to `run`, exits with its code.
import { run } from "./cli/run.js";

// A reader that went away (`teammem status | head`) closes our stdout: EPIPE. Output has nowhere to
// go, but the command's work (a sync half-way) is not dropped for it, and no stack trace is shown.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE" && err.code !== "ERR_STREAM_DESTROYED") process.exitCode = 1;
  });
}

process.exitCode = await run(process.argv.slice(2));
