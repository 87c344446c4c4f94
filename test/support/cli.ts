/** Drives the `teammem` CLI in-process through `run`, capturing stdout and stderr. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "@teammem/client";

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `teammem ...argv` with `env` (no TEAMMEM_TOKEN from the test process), in `cwd` (default:
 * the temp folder), with `stdin` as standard input (default: none).
 */
export async function teammem(
  argv: string[],
  env: Record<string, string> = {},
  { cwd = tmpdir(), stdin }: { cwd?: string; stdin?: string | Buffer } = {},
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (t: string) => void (stdout += t),
    stderr: (t: string) => void (stderr += t),
    ...(stdin === undefined ? {} : { readStdin: async (max: number) => Buffer.from(stdin).subarray(0, max + 1) }),
  };
  const code = await run(argv, env, io, cwd);
  return { code, stdout, stderr };
}

/** A fresh temporary folder, removed by the returned `remove`. */
export async function tempDir(prefix = "teammem-client-"): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}
