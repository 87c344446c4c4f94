/**
 * The `teammem` command line as a function: parses `argv` (without node and script), runs one
 * command, returns the exit code: 0 ok, 1 network/server/local failure, 2 usage error.
 * Tests call `run` in-process; `cli.ts` calls it with the real process.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "@commander-js/extra-typings";
import { redact } from "@teammem/scanner";
import { ClientError, localFailure } from "./errors.js";
import type { CommandContext, CommandModule, Io } from "./commands/common.js";

/**
 * Every command, in the order `--help` lists them, as its name and a loader: a run imports only
 * the module of the command it names (`teammem status` loads status and what status uses), and
 * none for `-V`; `--help`, `help`, no command or an unknown one load them all. Each `name` here
 * equals the module's own `name` (program-help.test.ts compares every help screen with a snapshot).
 */
const COMMANDS: readonly { readonly name: string; load(): Promise<CommandModule> }[] = [
  { name: "init", load: () => import("./commands/init.js") },
  { name: "sync", load: () => import("./commands/sync.js") },
  { name: "watch", load: () => import("./commands/watch.js") },
  { name: "push", load: () => import("./commands/push.js") },
  { name: "status", load: () => import("./commands/status.js") },
  { name: "history", load: () => import("./commands/history.js") },
  { name: "diff", load: () => import("./commands/diff.js") },
  { name: "restore", load: () => import("./commands/restore.js") },
  { name: "check", load: () => import("./commands/check.js") },
  { name: "doctor", load: () => import("./commands/doctor.js") },
  { name: "resolve", load: () => import("./commands/resolve.js") },
  { name: "scan", load: () => import("./commands/scan.js") },
  { name: "hooks", load: () => import("./commands/hooks.js") },
];

/**
 * The command modules `argv` needs: none when it starts with the version flag (commander prints
 * the version as it meets it), the one named first, else all (help, usage errors with suggestions).
 */
async function commandsFor(argv: readonly string[]): Promise<CommandModule[]> {
  const first = argv[0];
  if (first === "-V" || first === "--version") return [];
  const named = COMMANDS.find((command) => command.name === first);
  return Promise.all((named ? [named] : COMMANDS).map((command) => command.load()));
}

/** This package's version (its package.json sits one folder above both src/ and dist/). */
const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

const processIo: Io = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  readStdin: async (maxBytes) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) break; // enough to know it is too large; the rest is never held
    }
    return Buffer.concat(chunks).subarray(0, maxBytes + 1);
  },
};

/** Whether `argv` asks for JSON output (`--json` before a `--`). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/** A commander message without its `error: ` prefix, on one line (`unknown option '--jsn' (Did you mean --json?)`). */
function commanderMessage(text: string): string {
  // Commander echoes the input (`unknown option '--…'`): redacted, a credential typed in the wrong place never shows.
  return redact(text)
    .replace(/^error: /, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
}

/** Under --json, stdout stays JSON for scripts: the refusal as data. */
function printJsonError(io: Io, code: string, message: string): void {
  io.stdout(JSON.stringify({ ok: false, error: { code, message } }, null, 2) + "\n");
}

export async function run(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  io: Io = processIo,
  cwd: string = process.cwd(),
): Promise<number> {
  let exitCode = 0;
  const ctx: CommandContext = { env, io, cwd };
  const program = new Command("teammem")
    .description("Sync the team/ scope of an agent memory folder with a teammem server; secrets are held back")
    .version(VERSION, "-V, --version", "print the version and exit")
    // Program options only before the command name: `restore PATH --version N` is restore's option.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      // commander's own refusals (unknown option, missing argument, bad choice) in our format: one
      // `teammem: ... [usage_error]` line, like every other refusal (the JSON is printed below).
      outputError: (text, write) => write(`teammem: ${commanderMessage(text)} [usage_error]\n`),
    });
  const exit = (code: number) => void (exitCode = code);
  const commands = await commandsFor(argv);
  if (commands.length > 0) {
    const { subcommand } = await import("./commands/common.js");
    for (const command of commands) {
      if (command.bare) command.register(program.command(command.name).description(command.summary), ctx, exit);
      else command.register(subcommand(program, command.name, command.summary), ctx, exit);
    }
  }
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return 0;
      if (wantsJson(argv)) printJsonError(io, "usage_error", commanderMessage(err.message));
      return 2;
    }
    if (err instanceof ClientError) {
      io.stderr(`teammem: ${err.message} [${err.code}]\n`);
      if (wantsJson(argv)) printJsonError(io, err.code, err.message);
      return err.exitCode;
    }
    const local = localFailure(err);
    if (local) {
      io.stderr(`teammem: ${local.message} [${local.code}]\n`);
      if (wantsJson(argv)) printJsonError(io, local.code, local.message);
      return local.exitCode;
    }
    const message = redact(`unexpected error: ${err instanceof Error ? err.message : String(err)}`);
    io.stderr(`teammem: ${message} [failed]\n`);
    if (wantsJson(argv)) printJsonError(io, "failed", message);
    return 1;
  }
}
