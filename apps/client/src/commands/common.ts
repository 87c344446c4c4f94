/** What every command shares: its I/O, the `--dir`/`--agent`/`--repo`/`--token` options, finding the memory folder, the token. */
import { stat } from "node:fs/promises";
import type { Command } from "@commander-js/extra-typings";
import { redact } from "@teammem/scanner";
import { AGENTS } from "../agents/agent-folders.js";
import { locateFolder } from "../agents/locate-folder.js";
import { UsageError } from "../errors.js";
import { requireConfig, type Config } from "../state/config.js";
import { recoverDamagedState } from "../state/recover.js";
import { displayRelative, layoutOf, type Layout } from "../state/layout.js";
import { refuseNestedFolder, type NestingOptions } from "../state/nested-folder.js";

/** stdout carries data, stderr diagnostics; stdin for the commands that read it (`scan --stdin`, hooks). */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Reads standard input to its end, keeping at most `maxBytes + 1` bytes (so the caller can tell
   * "over the limit" without holding an unbounded input). Absent: there is no standard input.
   */
  readStdin?(maxBytes: number): Promise<Buffer>;
}

/**
 * `io` whose stdout and stderr pass through the scanner's redaction: for commands that print what
 * the server said (its messages, refusal reasons, teammates' names): a credential shows as `[REDACTED:<rule>]`.
 */
export function redactingIo(io: Io): Io {
  return { ...io, stdout: (text) => io.stdout(redact(text)), stderr: (text) => io.stderr(redact(text)) };
}

export interface CommandContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly io: Io;
  /** Folder `--dir` defaults to. */
  readonly cwd: string;
}

/** Subcommand `name` of `program` with the options every command takes (`--dir`, `--agent`, `--repo`, `--token`). */
export function subcommand(program: Command, name: string, summary: string) {
  return program
    .command(name)
    .description(summary)
    .option("--dir <folder>", "memory folder (default: current folder)")
    .option("--agent <agent>", `whose memory folder to use instead of --dir: ${AGENTS.join(", ")} (folder = --dir)`)
    .option("--repo <path>", "the git repository the agent works in (default: current folder)")
    .option("--token <token>", "access token (default: $TEAMMEM_TOKEN, then the one stored by init)");
}

/** A subcommand as {@link subcommand} makes it; each command adds its own options and action. */
export type CommonCommand = ReturnType<typeof subcommand>;
/** What the options of a command built by `define` parse to (commander's inferred types). */
export type OptionsOf<Define extends (command: CommonCommand) => { opts(): object }> = ReturnType<ReturnType<Define>["opts"]>;
export type CommonOptions = ReturnType<CommonCommand["opts"]>;

/**
 * One command of the CLI: `program.ts` makes `subcommand(program, name, summary)` and hands it to
 * `register`, which adds the command's options and an action that ends with `exit(code)`.
 * The action throws ClientError (exit code on the error) for what it refuses.
 */
export type CommandModule =
  | {
      readonly name: string;
      readonly summary: string;
      readonly bare?: undefined;
      register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void;
    }
  /** A command group with options of its own (`hooks install|uninstall`): gets a plain `program.command(name)`. */
  | {
      readonly name: string;
      readonly summary: string;
      readonly bare: true;
      register(command: Command, ctx: CommandContext, exit: (code: number) => void): void;
    };

/**
 * The layout of the memory folder named by `--dir`, or `--agent` (and `--repo`), or the current folder.
 * @throws UsageError (exit 2) when that folder, or a parent of it, exists but is a file (see checkFolder);
 *   `dir_is_team_scope` when it is the `team/` scope of a set-up memory folder or lies under it
 *   (see state/nested-folder.ts).
 */
export async function layoutFor(options: CommonOptions, ctx: CommandContext): Promise<Layout> {
  const found = await locateFolder(options, ctx.env, ctx.cwd);
  await checkFolder(found.root, found.how === "--dir" ? "--dir " : "the memory folder ");
  await refuseNestedFolder(found.root, { label: nestingLabel(found.how) });
  return layoutOf(found.root);
}

/** How a located folder is named in a refusal of state/nested-folder.ts, from LocatedFolder's `how`. */
export function nestingLabel(how: string): NestingOptions["label"] {
  return how === "--dir" || how === "the current folder" ? how : "the memory folder";
}

/**
 * Checks that the memory folder `root` is a folder or does not exist yet (the command then says
 * what is missing); `label` prefixes the path in the message (`--dir `).
 * @throws UsageError (exit 2) when `root` is a file, or a parent of it is a file.
 */
export async function checkFolder(root: string, label: string): Promise<void> {
  let isFolder: boolean;
  try {
    isFolder = (await stat(root)).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    if (code === "ENOTDIR") throw new UsageError(`${label}${displayRelative(root)}: a parent of it is a file, not a folder`);
    throw err;
  }
  if (!isFolder) throw new UsageError(`${label}${displayRelative(root)} is a file, not a folder; give the memory folder`);
}

/**
 * Checks a token's shape without ever echoing it, and returns the token. `Bearer <token>` (the
 * scheme in any case: an `Authorization` header's value pasted whole, try21 F1) is taken as the
 * token after the scheme, by every command alike.
 * @throws UsageError (exit 2, `usage_error`) for an empty token or one holding whitespace.
 */
export function checkToken(token: string, source: string): string {
  const bare = /^bearer[ \t]+(\S+)$/i.exec(token)?.[1] ?? token;
  if (bare.trim() === "") throw new UsageError(`the token from ${source} is empty`);
  if (/\s/.test(bare)) throw new UsageError(`the token from ${source} contains whitespace (a teammem token has none: was a space or line break pasted with it?)`);
  return bare;
}

/** The token to use: `--token`, then TEAMMEM_TOKEN, then the stored one; `undefined` if none. */
export function findToken(options: CommonOptions, ctx: CommandContext, config?: Config): string | undefined {
  if (options.token !== undefined) return checkToken(options.token, "--token");
  const fromEnv = ctx.env["TEAMMEM_TOKEN"];
  if (fromEnv !== undefined && fromEnv !== "") return checkToken(fromEnv, "TEAMMEM_TOKEN");
  return config?.token;
}

/**
 * The `--hook <agent>` option's value checked: run as that agent's hook (reading its JSON on stdin).
 * @throws UsageError for an agent without hooks, or a hook run given other arguments.
 */
export function hookAgent(hook: string | undefined, extraArgs: boolean): "claude-code" | undefined {
  if (hook === undefined) return undefined;
  if (hook !== "claude-code") throw new UsageError(`--hook must be claude-code (the only agent with hooks); got "${hook}"`);
  if (extraArgs) throw new UsageError("--hook reads everything from the hook's JSON on stdin: give no other paths or options");
  return hook;
}

/** @throws UsageError naming the three ways to give a token. */
export function requireToken(options: CommonOptions, ctx: CommandContext, config: Config): string {
  const token = findToken(options, ctx, config);
  if (!token) throw new UsageError("no access token: pass --token, set TEAMMEM_TOKEN, or store one with `teammem init --token`");
  return token;
}

/**
 * The config of a set-up folder, after damaged rebuildable state files were moved aside (see
 * state/recover.ts; one `teammem: warning: ...` line each on stderr). `moveAside` false (a dry
 * run) only warns.
 * @throws UsageError when the folder was never set up; StateError when config.json is damaged.
 */
export async function openFolder(layout: Layout, ctx: CommandContext, moveAside = true): Promise<Config> {
  const config = await requireConfig(layout);
  await recoverDamagedState(layout, (line) => ctx.io.stderr(`teammem: ${line}\n`), moveAside);
  return config;
}
