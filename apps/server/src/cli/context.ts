/**
 * What every `teammem-server` command module shares: the context a command runs in (env, output,
 * stop signal), exit codes, argument parsers, and `withStore` (open the configured database for one
 * admin command, waiting for another admin command on the embedded folder, never for a server).
 */
import { InvalidArgumentError, Option, type Command } from "@commander-js/extra-typings";
import { DataDirLockedError } from "../db/data-dir-lock.js";
import { isListenHost, LISTEN_HOST_RULE } from "../http/listen-address.js";
import type { OpenedStore } from "../server.js";

/** Exit codes: 0 ok, 1 failure, 2 usage or configuration error, 3 the embedded data folder is held. */
export const EXIT = { ok: 0, failure: 1, usage: 2, locked: 3 } as const;

/** Where a command writes: stdout is data (a token, a listing), stderr diagnostics. Each text ends with its own newline. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Writes data to stdout and resolves once the stream took it (backpressure: a slow pipe slows
   * the writer down instead of filling memory). Absent: `stdout` is used and the write resolves at once.
   */
  stdoutAsync?(text: string): Promise<void>;
  /** Standard input as bytes, for commands that read `-` (absent: such a command refuses `-`). */
  stdin?(): AsyncIterable<Uint8Array | string>;
  /**
   * When stdout is a regular file (a shell's `> backup.jsonl`), makes it owner-only (0600) and
   * resolves true; resolves false for a pipe, a terminal, a device. Absent: stdout is no file.
   * @throws the fs error when the file's mode cannot be changed (another user's file).
   */
  privateStdoutFile?(): Promise<boolean>;
}

/** What a command may use of its caller: no command reads `process` itself. */
export interface CliContext {
  /** The environment (`process.env` in the bin); read through `readServerEnv`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly io: Io;
  /** Aborting stops a running `start` as SIGINT/SIGTERM do (how tests stop an in-process server). */
  readonly signal?: AbortSignal;
  /** Sets the exit code `run` returns when the action ends without throwing (default 0). */
  setExitCode(code: number): void;
}

/**
 * One command or command group of `teammem-server`: `register` adds it to `program` (its options,
 * arguments and action). Actions throw {@link CliError} for what they refuse; `run` prints it.
 */
export interface CommandModule {
  register(program: Command, ctx: CliContext): void;
}

/** A refusal with its exit code; `run` prints `teammem-server: <message>` to stderr. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** Writes `text` plus a newline to stdout / stderr. */
export const out = (ctx: CliContext, text: string) => ctx.io.stdout(text + "\n");
export const err = (ctx: CliContext, text: string) => ctx.io.stderr(text + "\n");
/** Writes `text` (no newline added) to stdout, resolving once the stream took it (see {@link Io.stdoutAsync}). */
export const writeData = async (ctx: CliContext, text: string): Promise<void> => {
  if (ctx.io.stdoutAsync) await ctx.io.stdoutAsync(text);
  else ctx.io.stdout(text);
};

export const DEFAULT_DATA_DIR = "./.teammem-server";
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A TCP port, 0-65535 (0: any free one). */
export function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError("a port is a whole number from 0 to 65535");
  return n;
}

/** A listen host for `--host`: an IP address or a host name (http/listen-address.ts). */
export function parseHost(value: string): string {
  if (!isListenHost(value)) throw new InvalidArgumentError(`a host ${LISTEN_HOST_RULE}`);
  return value;
}

/** A lifetime in whole days, 1-3650. */
export function parseDays(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 3650) throw new InvalidArgumentError("days must be a whole number from 1 to 3650");
  return n;
}

/** A team or user name: 1-64 of [A-Za-z0-9._@-], starting alphanumeric; `what` names it in the error. */
export function parseName(what: string) {
  return (value: string): string => {
    if (!NAME.test(value)) throw new InvalidArgumentError(`${what}: 1-64 of [A-Za-z0-9._@-], starting alphanumeric`);
    return value;
  };
}

/** A UUID (token ids); `what` names it in the error. */
export function parseUuid(what: string) {
  return (value: string): string => {
    if (!UUID.test(value)) throw new InvalidArgumentError(`${what} is a UUID`);
    return value;
  };
}

/** `--data-dir <dir>`, taken by every command that opens the database. */
export const dataDirOption = () =>
  new Option("--data-dir <dir>", `folder of the embedded database, when DATABASE_URL is unset (default: TEAMMEM_DATA_DIR or ${DEFAULT_DATA_DIR})`);

/** What to tell a user whose admin command met a data folder held by a running server. */
function lockedAdvice(e: DataDirLockedError, apiExample: string | null): string {
  const url = e.holder?.url ?? "http://<host>:<port>";
  const lines = [`${e.message}.`, "The embedded database admits one process at a time, so this command did not open it."];
  if (e.holder?.purpose !== "server") {
    lines.push("It did not finish within 15 s; try again once it has.");
  } else if (apiExample) {
    lines.push("Stop the server and run the command again, or use the server's admin API with an admin token, e.g.:");
    lines.push(`  ${apiExample.replaceAll("{url}", url)}`);
  } else {
    lines.push("Stop the server and run the command again.");
  }
  return lines.join("\n");
}

export interface StoreRequest {
  /** `--data-dir`, when given. */
  dataDir: string | undefined;
  /** The command's name, recorded as the lock's holder (e.g. "token create"). */
  purpose: string;
  /** The admin API call doing the same, `{url}` standing for the server's URL; printed when a server holds the folder. */
  apiExample?: string | null;
}

/**
 * Opens the configured database (migrated) for one admin command, runs `fn`, closes it.
 * Another short admin command holding the embedded folder is waited for (up to 15 s); a server is not.
 * @throws CliError exit 3 with advice when the folder stays held; EnvError for a bad environment.
 */
export async function withStore<T>(ctx: CliContext, request: StoreRequest, fn: (store: OpenedStore) => Promise<T>): Promise<T> {
  // The app (database, migrations, routes) loads here, not when the CLI starts: `--version`,
  // `--help` and usage errors do not pay for it.
  const { openStore, readServerEnv } = await import("../server.js");
  const env = readServerEnv(ctx.env);
  let store: OpenedStore | undefined;
  for (const deadline = Date.now() + 15_000; !store; ) {
    try {
      store = await openStore(env, request.dataDir ?? env.TEAMMEM_DATA_DIR ?? DEFAULT_DATA_DIR, request.purpose, (line) => err(ctx, line));
    } catch (e) {
      if (!(e instanceof DataDirLockedError)) throw e;
      if (e.holder?.purpose === "server" || Date.now() > deadline) throw new CliError(lockedAdvice(e, request.apiExample ?? null), EXIT.locked);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
