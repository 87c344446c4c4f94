#!/usr/bin/env node
// Entry point of the `teammem-server` binary: hands the process's argv and env to `run`, exits with its code.
import { run } from "./cli/run.js";

process.exitCode = await run(process.argv.slice(2));
