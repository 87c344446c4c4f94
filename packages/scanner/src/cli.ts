// Entry point of the `teammem-scan` binary: hands the process's argv, env and I/O to `run`, exits with its code.
import { run } from "./cli/run.js";

process.exitCode = await run(process.argv.slice(2));
