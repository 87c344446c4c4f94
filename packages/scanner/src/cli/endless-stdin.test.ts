/**
 * `teammem-scan -` stops reading stdin as soon as it passes the 64 MiB limit (try20 F6: it read all
 * of it first, so `yes | teammem-scan -` never ended and grew to 7.9 GB in 60 s). Run as the built
 * command, a real process fed a stream far longer than the limit: exit 3 with the documented "not
 * scanned" line, the stream mostly unread, and memory far below the stream's size. The stream stops
 * at 4x the limit, so a regression reads it all and fails the test instead of taking the machine.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_SCAN_FILE_BYTES } from "../text-file.js";

const launcher = fileURLToPath(new URL("../../bin/teammem-scan.js", import.meta.url));
const MiB = 1024 * 1024;
/** Bytes offered at most: 4x the limit. */
const STREAM_CAP = 4 * MAX_SCAN_FILE_BYTES;
let dir: string;
/** A module loaded before the command (`--import`): prints the process's peak memory (KiB) when it exits. */
let peakHook: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "teammem-scan-stdin-"));
  peakHook = join(dir, "peak.mjs");
  writeFileSync(peakHook, 'process.on("exit", () => process.stderr.write(`peak-rss-kib=${process.resourceUsage().maxRSS}\\n`));\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Fed {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** Bytes the command took from the pipe (offered minus those still queued on our side). */
  taken: number;
}

/** Runs `teammem-scan -` fed "y\n" lines until it exits or {@link STREAM_CAP} bytes; killed after 60 s. */
function feedYes(): Promise<Fed> {
  const child = spawn(process.execPath, ["--import", peakHook, launcher, "--no-config", "-"], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: dir },
    stdio: ["pipe", "ignore", "pipe"],
  });
  const chunk = Buffer.alloc(MiB, "y\n");
  let offered = 0;
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
  child.stdin.on("error", () => undefined); // EPIPE once the command stopped reading: expected
  const feed = (): void => {
    while (offered < STREAM_CAP && !child.stdin.destroyed) {
      offered += chunk.length;
      if (!child.stdin.write(chunk)) {
        child.stdin.once("drain", feed);
        return;
      }
    }
    child.stdin.end();
  };
  feed();
  const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((done) =>
    child.on("close", (code, signal) => {
      clearTimeout(killer);
      done({ code, signal, stderr, taken: offered - child.stdin.writableLength });
    }),
  );
}

describe("teammem-scan - with a stream longer than the limit", () => {
  it("stops reading once past the limit: exit 3, the not-scanned line, bounded memory", async () => {
    const r = await feedYes();
    expect(r.signal).toBeNull();
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`teammem-scan: -: not scanned (larger than ${MAX_SCAN_FILE_BYTES} bytes)\n`);
    // The limit, plus what the pipe and the stream's queue hold: far from the 256 MiB offered.
    expect(r.taken).toBeLessThan(MAX_SCAN_FILE_BYTES + 32 * MiB);
    const peak = Number(/peak-rss-kib=(\d+)/.exec(r.stderr)?.[1]) * 1024;
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(STREAM_CAP);
  }, 90_000);
});
