import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, utimes } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { layoutOf, type Layout } from "./layout.js";
import { STALE_MS, acquireLock } from "./lock.js";

let layout: Layout; // a fresh memory folder with its state folder, per test
beforeEach(async () => {
  layout = layoutOf(await mkdtemp(join(tmpdir(), "teammem-lock-")));
  await mkdir(layout.state);
});
afterEach(() => rm(layout.root, { recursive: true, force: true }));

/** Another process holding the folder's lock (proper-lockfile, as the client takes it) until killed. */
async function otherProcessHolding() {
  const lib = createRequire(import.meta.url).resolve("proper-lockfile");
  const code = `require(${JSON.stringify(lib)}).lock(${JSON.stringify(layout.state)}, { lockfilePath: ${JSON.stringify(layout.lock)}, realpath: false, stale: ${STALE_MS} })
    .then(() => console.log("locked"), (e) => { console.error(e); process.exit(1); }); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((r) => child.once("exit", r));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (b) => String(b).includes("locked") && resolve());
    child.once("exit", (c) => reject(new Error(`lock holder exited ${c}`)));
  });
  return {
    kill: async (signal: NodeJS.Signals) => {
      child.kill(signal);
      await exited;
    },
  };
}

describe("folder lock", () => {
  it("lets one command in at a time, and the next one in after release", async () => {
    const release = await acquireLock(layout);
    await expect(acquireLock(layout)).rejects.toThrow(`another teammem command is working on ${layout.root}; try again when it ends`);
    await release();
    expect(existsSync(layout.lock)).toBe(false);
    const again = await acquireLock(layout);
    await again();
  });

  it("refuses while another process holds the lock, and is free once that process is stopped (SIGTERM)", async () => {
    const other = await otherProcessHolding();
    await expect(acquireLock(layout)).rejects.toThrow("another teammem command is working on");
    await other.kill("SIGTERM");
    const release = await acquireLock(layout);
    await release();
  });

  it("with waitMs, waits for the holder to release (a running watch's sync) instead of refusing", async () => {
    const release = await acquireLock(layout);
    let second: (() => Promise<void>) | undefined;
    const waiting = acquireLock(layout, { waitMs: 10_000 }).then((r) => (second = r));
    await new Promise((r) => setTimeout(r, 300));
    expect(second).toBeUndefined(); // still held
    await release();
    await waiting;
    await second!();
    const held = await acquireLock(layout);
    await expect(acquireLock(layout, { waitMs: 300 })).rejects.toThrow("another teammem command is working on"); // gives up after waitMs
    await held();
  });

  it("takes over a lock left by a killed process once it is stale", async () => {
    const other = await otherProcessHolding();
    await other.kill("SIGKILL");
    expect(existsSync(layout.lock)).toBe(true); // nobody removed it
    await expect(acquireLock(layout)).rejects.toThrow("frees itself within 30 s");
    const past = new Date(Date.now() - STALE_MS - 5_000);
    await utimes(layout.lock, past, past); // as if the killed holder stopped refreshing it long ago
    const release = await acquireLock(layout);
    await release();
  });
});
