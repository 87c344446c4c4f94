/**
 * The `teammem` command line as a function: parses `argv` (without node and script), runs one
 * command, returns the exit code: 0 ok, 1 network/server/local failure, 2 usage error.
 * Tests call `run` in-process; `cli.ts` calls it with the real process.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "@commander-js/extra-typings";
import { ClientError } from "./errors.js";
import * as check from "./commands/check.js";
import * as diffCommand from "./commands/diff.js";
import * as doctor from "./commands/doctor.js";
import * as history from "./commands/history.js";
import * as hooks from "./commands/hooks.js";
import * as init from "./commands/init.js";
import * as pushCommand from "./commands/push.js";
import * as resolveCommand from "./commands/resolve.js";
import * as restore from "./commands/restore.js";
import * as scanCommand from "./commands/scan.js";
import * as status from "./commands/status.js";
import * as syncCommand from "./commands/sync.js";
import * as watchCommand from "./commands/watch.js";
import { subcommand, type CommandContext, type CommandModule, type Io } from "./commands/common.js";

const COMMANDS: readonly CommandModule[] = [
  init,
  syncCommand,
  watchCommand,
  pushCommand,
  status,
  history,
  diffCommand,
  restore,
  check,
  doctor,
  resolveCommand,
  scanCommand,
  hooks,
];

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
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  const exit = (code: number) => void (exitCode = code);
  for (const command of COMMANDS) {
    if (command.bare) command.register(program.command(command.name).description(command.summary), ctx, exit);
    else command.register(subcommand(program, command.name, command.summary), ctx, exit);
  }
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof ClientError) {
      io.stderr(`teammem: ${err.message} [${err.code}]\n`);
      // Under --json, stdout stays JSON for scripts: the refusal as data.
      if (wantsJson(argv)) io.stdout(JSON.stringify({ ok: false, error: { code: err.code, message: err.message } }, null, 2) + "\n");
      return err.exitCode;
    }
    io.stderr(`teammem: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
