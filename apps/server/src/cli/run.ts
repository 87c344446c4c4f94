/**
 * The `teammem-server` command line as a function: parses `argv` (without node and script), runs
 * one command, resolves with the exit code (0 ok, 1 failure, 2 usage or configuration error, 3 the
 * embedded data folder is in use by another process). `start` resolves when the server has stopped.
 * Tests call `run` in-process; `src/cli.ts` (the bin) calls it with the real process.
 *
 * Each command or command group is a module in this folder exporting `register(program, ctx)`;
 * a new one is one file plus one entry in {@link COMMANDS}.
 */
import { fchmod, fstat } from "node:fs";
import { promisify } from "node:util";
import { Command, CommanderError } from "@commander-js/extra-typings";
import { DataDirLockedError } from "../db/data-dir-lock.js";
import { EnvError } from "../config/server-env.js";
import { describeFailure } from "./failure-message.js";
import { SERVER_VERSION } from "../version.js";
import { CliError, EXIT, type CliContext, type CommandModule, type Io } from "./context.js";

/**
 * Every command module, in the order `--help` lists them, with the top-level command names it
 * registers: a run imports only the module of the command it names (`token create` does not load
 * the HTTP server), none for `--version`, and all for help, no command or an unknown one.
 */
const COMMANDS: readonly { readonly names: readonly string[]; load(): Promise<CommandModule> }[] = [
  { names: ["start"], load: () => import("./start.js") },
  { names: ["migrate"], load: () => import("./migrate.js") },
  { names: ["team"], load: () => import("./team.js") },
  { names: ["token"], load: () => import("./token.js") },
  { names: ["member"], load: () => import("./member.js") },
  { names: ["audit"], load: () => import("./audit.js") },
  { names: ["bypass"], load: () => import("./bypass.js") },
  { names: ["purge"], load: () => import("./purge.js") },
  { names: ["epoch"], load: () => import("./epoch.js") },
  { names: ["export", "import"], load: () => import("./backup.js") },
];

/** The command modules `argv` needs (see {@link COMMANDS}). */
async function commandsFor(argv: readonly string[]): Promise<CommandModule[]> {
  const first = argv[0];
  if (first === "--version") return [];
  const named = COMMANDS.find((command) => first !== undefined && command.names.includes(first));
  return Promise.all((named ? [named] : COMMANDS).map((command) => command.load()));
}

const processIo: Io = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  stdoutAsync: (text) =>
    new Promise<void>((resolve, reject) => {
      // Resolves once the chunk is flushed to the pipe or file (a full pipe waits for its reader);
      // a reader gone (EPIPE: `export | head`) fails the command instead of crashing the process.
      const failed = (e: Error) => reject(e);
      process.stdout.once("error", failed);
      process.stdout.write(text, (e) => {
        // On failure the stream emits 'error' after this callback: `failed` stays to take it.
        if (e) return reject(e);
        process.stdout.off("error", failed);
        resolve();
      });
    }),
  stdin: () => process.stdin,
  privateStdoutFile: async () => {
    const fd = 1;
    if (!(await promisify(fstat)(fd)).isFile()) return false;
    await promisify(fchmod)(fd, 0o600);
    return true;
  },
};

export interface RunOptions {
  /** Aborting it stops a running `start` (as SIGINT/SIGTERM do). */
  signal?: AbortSignal;
}

/**
 * Runs one `teammem-server` command.
 * @param argv the arguments after the script, e.g. `["token", "create", "--team", "t", ...]`
 * @param env the environment to read (DATABASE_URL, JWT_SECRET, ...): nothing below reads `process.env`
 * @param io where output goes (stdout: data; stderr: diagnostics and the server log)
 * @returns the exit code; never throws, never calls `process.exit`
 */
export async function run(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  io: Io = processIo,
  options: RunOptions = {},
): Promise<number> {
  let exitCode: number = EXIT.ok;
  const ctx: CliContext = { env, io, ...(options.signal ? { signal: options.signal } : {}), setExitCode: (code) => void (exitCode = code) };
  const program = new Command("teammem-server")
    .description(
      "teammem server: versioned team memory with server-side secret scanning.\n" +
        "Database: PostgreSQL when DATABASE_URL is set, otherwise an embedded PGlite database in --data-dir.",
    )
    .version(SERVER_VERSION, "--version", "print the version and exit")
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError("(run with --help for usage)");
  for (const command of await commandsFor(argv)) command.register(program, ctx);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const stderr = (text: string) => io.stderr(`teammem-server: ${text}\n`);
    if (e instanceof CliError) {
      stderr(e.message);
      return e.exitCode;
    }
    if (e instanceof EnvError) {
      stderr(`invalid environment (nothing was started):\n${e.problems.map((p) => `  ${p}`).join("\n")}`);
      return EXIT.usage;
    }
    if (e instanceof DataDirLockedError) {
      stderr(`${e.message}.\nThe embedded database admits one process at a time: stop that process first${e.holder?.url ? `, or use the server at ${e.holder.url}` : ""}.`);
      return EXIT.locked;
    }
    stderr(describeFailure(e));
    return EXIT.failure;
  }
}
