#!/usr/bin/env node
// Entry point of the `teammem` binary: hands the process's argv and env to `run`, exits with its code.
import { run } from "./program.js";

process.exitCode = await run(process.argv.slice(2));
