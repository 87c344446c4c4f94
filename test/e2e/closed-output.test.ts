/** The built binaries when the reader of their output goes away (`teammem status | head`): no stack trace, the exit code of the command. */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLIENT_CLI, SERVER_CLI } from "../../scripts/lib/processes.mjs";

const SCANNER_CLI = fileURLToPath(new URL("../../packages/scanner/dist/cli.js", import.meta.url));

/** Runs `cli args` with its stdout pipe closed before it writes; resolves with its exit code and stderr. */
function runWithClosedStdout(cli: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TEAMMEM_TOKEN: "" } });
    child.stdout.destroy(); // the reader is gone: every write to stdout fails with EPIPE
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("a closed stdout (EPIPE)", () => {
  it.each([
    ["teammem", CLIENT_CLI],
    ["teammem-server", SERVER_CLI],
    ["teammem-scan", SCANNER_CLI],
  ])("%s --help exits 0 without an unhandled-error stack trace", async (_name, cli) => {
    expect(existsSync(cli), `${cli} is missing: run \`npx tsc -b\` first`).toBe(true);
    const r = await runWithClosedStdout(cli, ["--help"]);
    expect(r.stderr).not.toContain("EPIPE");
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack frame
    expect(r.code).toBe(0);
  });
});
