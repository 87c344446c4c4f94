/**
 * `teammem-server` commands run in-process through `run(argv, env, io)`: the output captured, the
 * environment given whole (nothing of the host's leaks in), `start` stopped through an AbortSignal.
 * Real processes of the built bin: `cli-processes.test.ts`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { run } from "../../src/cli/run.js";
import { createPostgresDatabase, seedPgliteDataDir, type DatabaseKind } from "../../src/testing.js";

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs `teammem-server <args>` to completion with exactly `env` (the server log silenced unless `env` sets LOG_LEVEL). */
export async function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const status = await run(args, { LOG_LEVEL: "silent", ...env }, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { status, stdout, stderr };
}

export interface StartedCli {
  url: string;
  stdout(): string;
  stderr(): string;
  /** Stops the server as SIGTERM does; resolves with `run`'s exit code. Idempotent. */
  stop(): Promise<number>;
}

/**
 * Runs `teammem-server start --port 0 <args>` in-process and resolves once it printed its URL; the
 * server is stopped when the test finishes.
 * @throws Error quoting the output when `run` returns before listening.
 */
export async function startCli(args: string[], env: Record<string, string> = {}): Promise<StartedCli> {
  let stdout = "";
  let stderr = "";
  let listening: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve) => (listening = resolve));
  const controller = new AbortController();
  const io = {
    stdout: (t: string) => {
      stdout += t;
      const m = /listening on (http:\/\/\S+)/.exec(stdout);
      if (m) listening(m[1]!);
    },
    stderr: (t: string) => void (stderr += t),
  };
  const done = run(["start", "--port", "0", ...args], { LOG_LEVEL: "silent", ...env }, io, { signal: controller.signal });
  const stop = () => {
    controller.abort();
    return done;
  };
  onTestFinished(async () => void (await stop()));
  const first = await Promise.race([url, done.then((code) => ({ code }))]);
  if (typeof first !== "string") throw new Error(`teammem-server start returned ${first.code} without listening\n${stdout}${stderr}`);
  return { url: first, stdout: () => stdout, stderr: () => stderr, stop };
}

/** A fresh temporary folder, removed when the test finishes. */
export async function tempDir(prefix = "teammem-cli-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A data folder (in a fresh temporary folder) already holding the migrated PGlite template, so its
 * first open skips initdb: for tests whose subject is not a new folder.
 */
export async function seededDataDir(): Promise<string> {
  const dir = join(await tempDir(), "data");
  await seedPgliteDataDir(dir);
  return dir;
}

/** Where the CLI keeps its data: arguments and environment naming a fresh database of `kind`, dropped or removed after the test. */
export interface CliDatabase {
  args: string[];
  env: Record<string, string>;
}

/** `seeded`: a PGlite data folder starts from the migrated template (no initdb; see {@link seededDataDir}). */
export async function cliDatabase(kind: DatabaseKind, postgresServerUrl: string, { seeded = false } = {}): Promise<CliDatabase> {
  if (kind === "pglite") return { args: ["--data-dir", seeded ? await seededDataDir() : join(await tempDir(), "data")], env: {} };
  const db = await createPostgresDatabase(postgresServerUrl);
  onTestFinished(() => db.drop());
  return { args: [], env: { DATABASE_URL: db.url } };
}

/** The admin token a first start printed. */
export const firstAdminToken = (stdout: string) => /Admin token \(shown once, keep it safe\): (\S+)/.exec(stdout)?.[1];

/** GET /v1/admin/members with `token`. */
export const members = (url: string, token: string) => fetch(`${url}/v1/admin/members`, { headers: { authorization: `Bearer ${token}` } });
