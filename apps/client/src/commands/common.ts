/** What every command shares: its I/O, the `--dir`/`--token` options, opening a set-up folder, the token. */
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import type { Config } from "../state/config.js";
import { layoutOf, type Layout } from "../state/layout.js";

/** stdout carries data, stderr diagnostics. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface CommandContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly io: Io;
  /** Folder `--dir` defaults to. */
  readonly cwd: string;
}

export interface CommonOptions {
  dir?: string;
  token?: string;
}

/** One command of the CLI: `cli` registers `name` with `summary`, lets `configure` add options, then calls `run`. */
export interface CommandModule {
  readonly name: string;
  readonly summary: string;
  configure(command: Command): void;
  /** @returns the exit code. @throws ClientError (exit code on the error). */
  run(options: Record<string, unknown>, ctx: CommandContext): Promise<number>;
}

export function addCommonOptions(command: Command): void {
  command
    .option("--dir <folder>", "memory folder (default: current folder)")
    .option("--token <token>", "access token (default: $TEAMMEM_TOKEN, then the one stored by init)");
}

export function layoutFor(options: CommonOptions, ctx: CommandContext): Layout {
  if (options.dir !== undefined && options.dir.trim() === "") throw new UsageError("--dir must not be empty");
  return layoutOf(options.dir ?? ctx.cwd);
}

/** Checks a token's shape without ever echoing it. */
export function checkToken(token: string, source: string): string {
  if (token.trim() === "" || /\s/.test(token)) throw new UsageError(`the token from ${source} is empty or contains whitespace`);
  return token;
}

/** The token to use: `--token`, then TEAMMEM_TOKEN, then the stored one; `undefined` if none. */
export function findToken(options: CommonOptions, ctx: CommandContext, config?: Config): string | undefined {
  if (options.token !== undefined) return checkToken(options.token, "--token");
  const fromEnv = ctx.env["TEAMMEM_TOKEN"];
  if (fromEnv !== undefined && fromEnv !== "") return checkToken(fromEnv, "TEAMMEM_TOKEN");
  return config?.token;
}

/** @throws UsageError naming the three ways to give a token. */
export function requireToken(options: CommonOptions, ctx: CommandContext, config: Config): string {
  const token = findToken(options, ctx, config);
  if (!token) throw new UsageError("no access token: pass --token, set TEAMMEM_TOKEN, or store one with `teammem init --token`");
  return token;
}
