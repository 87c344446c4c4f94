#!/usr/bin/env node
// Entry point of the `teammem-server` binary: hands the process's argv and env to `run`, exits with its code.
import { watchLauncher } from "./cli/launcher-watch.js";
import { run } from "./cli/run.js";

// A reader that went away (`teammem status | head`) closes our stdout: EPIPE. Output has nowhere to
// go, but the command's work (a sync half-way) is not dropped for it, and no stack trace is shown.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE" && err.code !== "ERR_STREAM_DESTROYED") process.exitCode = 1;
  });
}

// Under npx / npm start a SIGTERM to npm ends only the shell between npm and us: stop as for a
// SIGTERM once that shell is gone (cli/launcher-watch.ts). Only `start` runs until stopped.
const argv = process.argv.slice(2);
const stop = new AbortController();
const unwatch =
  argv[0] === "start"
    ? watchLauncher({
        env: process.env,
        parentPid: () => process.ppid,
        onGone: () => {
          process.stderr.write("teammem-server: the process npm started this server under is gone (npm stopped?); stopping as for SIGTERM\n");
          stop.abort();
        },
      })
    : () => undefined;
process.exitCode = await run(argv, process.env, undefined, { signal: stop.signal });
unwatch();
