/**
 * The built `teammem-server` (dist/cli.js: `npx tsc -b` first) as a real process: spawned with a
 * clean environment, its output collected, waited for, and ended after the test. For tests whose
 * subject is the process (signals, exit codes, the wait for PostgreSQL); in-process runs of the
 * CLI: platform/cli-harness.ts.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";

export const BUILT_CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

/** The host's environment without the variables the CLI reads (so none leaks in), LOG_LEVEL warn, then `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(DATABASE_URL|JWT_SECRET|HOST|PORT|LOG_LEVEL|TEAMMEM_.*)$/.test(k)) env[k] = v;
  }
  return { ...env, LOG_LEVEL: "warn", ...extra };
}

/** A port of 127.0.0.1 free a moment ago (the system's pick for port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface CliProcess {
  child: ChildProcess;
  /** Settles when the process exits, with its code and whole output. */
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  stdout(): string;
  stderr(): string;
  /**
   * The first match of `pattern` in the process's stdout and stderr, waiting for it up to `timeoutMs`.
   * @throws Error quoting the output when the process exits or the time runs out first.
   */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

/** `teammem-server <args>` as a process with {@link cleanEnv}(`env`); killed with SIGTERM after the test if still running. */
export function spawnCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, [BUILT_CLI, ...args], { env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (b) => (stdout += b));
  child.stderr!.on("data", (b) => (stderr += b));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((r) => child.once("exit", (code) => r({ code, stdout, stderr })));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  });
  const waitFor = async (pattern: RegExp, timeoutMs = 40_000) => {
    for (const deadline = Date.now() + timeoutMs; ; ) {
      const m = pattern.exec(stdout) ?? pattern.exec(stderr);
      if (m) return m;
      if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
        throw new Error(`no ${pattern} from teammem-server ${args.join(" ")} (exit ${child.exitCode ?? child.signalCode})\n${stdout}${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { child, exited, stdout: () => stdout, stderr: () => stderr, waitFor };
}
