import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { layoutOf, type Layout } from "./layout.js";
import { STALE_MS, acquireLock, holderPath } from "./lock.js";
import { thisHolder } from "./lock-holder.js";

let layout: Layout; // a fresh memory folder with its state folder, per test
beforeEach(async () => {
  layout = layoutOf(await mkdtemp(join(tmpdir(), "teammem-lock-")));
  await mkdir(layout.state);
});
afterEach(() => rm(layout.root, { recursive: true, force: true }));

/**
 * Another process holding the folder's lock until killed: through acquireLock (this module, run by
 * tsx), or with `bare`, through proper-lockfile alone (a lock naming no holder: an older client's).
 */
async function otherProcessHolding({ bare = false }: { bare?: boolean } = {}) {
  const lib = createRequire(import.meta.url).resolve("proper-lockfile");
  const code = bare
    ? `require(${JSON.stringify(lib)}).lock(${JSON.stringify(layout.state)}, { lockfilePath: ${JSON.stringify(layout.lock)}, realpath: false, stale: ${STALE_MS} })
    .then(() => console.log("locked"), (e) => { console.error(e); process.exit(1); }); setInterval(() => {}, 1000);`
    : `import { acquireLock } from ${JSON.stringify(new URL("./lock.ts", import.meta.url).href)};
    acquireLock(${JSON.stringify(layout)}).then(() => console.log("locked"), (e) => { console.error(e); process.exit(1); }); setInterval(() => {}, 1000);`;
  const args = bare ? ["-e", code] : ["--import", "tsx", "--input-type=module", "-e", code];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
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
    pid: child.pid!,
    kill: async (signal: NodeJS.Signals) => {
      child.kill(signal);
      await exited;
    },
  };
}

/** A lock folder with `record` beside it as its holder, both stamped alike (as a holder records itself). */
async function lockedWithRecord(record: object) {
  await mkdir(layout.lock);
  await writeFile(holderPath(layout.lock), JSON.stringify(record));
  const now = new Date();
  await utimes(layout.lock, now, now);
  await utimes(holderPath(layout.lock), now, now);
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

  it("takes over at once the lock of a command killed (SIGKILL) on this machine, and says so", async () => {
    const other = await otherProcessHolding();
    await expect(acquireLock(layout)).rejects.toThrow("another teammem command is working on"); // alive: never taken
    await other.kill("SIGKILL");
    expect(existsSync(layout.lock)).toBe(true); // nobody removed it
    const said: string[] = [];
    const release = await acquireLock(layout, { warn: (line) => said.push(line) });
    expect(said).toEqual([`took over the lock of a command that ended (pid ${other.pid})`]);
    expect(JSON.parse(await readFile(holderPath(layout.lock), "utf8"))).toMatchObject({ pid: process.pid });
    await release();
    expect([existsSync(layout.lock), existsSync(holderPath(layout.lock))]).toEqual([false, false]); // its holder record removed with it
  });

  it("keeps the lock past proper-lockfile's first refresh (STALE_MS / 2): recording the holder does not touch the lock folder", async () => {
    const release = await acquireLock(layout);
    await new Promise((r) => setTimeout(r, STALE_MS / 2 + 3_000));
    await release(); // throws 'the lock ... was lost while the command ran' if the refresh found the folder changed
    expect(existsSync(layout.lock)).toBe(false);
  });

  it("lets an older client (proper-lockfile alone) take over a killed command's lock by age, and then never takes that client's lock at once", async () => {
    const killed = await otherProcessHolding();
    await killed.kill("SIGKILL");
    const past = new Date(Date.now() - STALE_MS - 5_000);
    for (const path of [layout.lock, holderPath(layout.lock)]) await utimes(path, past, past); // its holder stamped both alike, long ago
    const older = await otherProcessHolding({ bare: true }); // removes the lock folder with rmdir, creates it anew
    expect(existsSync(holderPath(layout.lock))).toBe(true); // the killed holder's record, left beside: not this lock's any more
    await expect(acquireLock(layout)).rejects.toThrow("another teammem command is working on");
    await older.kill("SIGTERM");
    const release = await acquireLock(layout);
    await release();
  });

  it.runIf(existsSync("/proc/self/stat"))("takes over at once a lock whose holder's pid now names a process started at another time (Linux)", async () => {
    await lockedWithRecord({ ...thisHolder(), start: "1" }); // this live pid, reused
    const said: string[] = [];
    const release = await acquireLock(layout, { warn: (line) => said.push(line) });
    expect(said).toEqual([`took over the lock of a command that ended (pid ${process.pid})`]);
    await release();
  });

  it("keeps the age rule for a lock whose holder cannot be proved gone: another machine's, a reused pid's unknown start, an older client's", async () => {
    const here = thisHolder();
    const records = [
      { ...here, pid: 999_999_999, host: `${here.host}-elsewhere` }, // a shared folder: another machine's process
      { pid: process.pid, host: here.host, ...(here.boot && { boot: here.boot }), ...(here.pidns && { pidns: here.pidns }) }, // live pid, start unknown
    ];
    for (const record of records) {
      await lockedWithRecord(record);
      await expect(acquireLock(layout)).rejects.toThrow("within 30 s if it ran on another machine");
      const past = new Date(Date.now() - STALE_MS - 5_000);
      await utimes(layout.lock, past, past); // as if its holder stopped refreshing it long ago
      const release = await acquireLock(layout);
      await release();
    }
    const bare = await otherProcessHolding({ bare: true }); // no holder recorded
    await bare.kill("SIGKILL");
    await expect(acquireLock(layout)).rejects.toThrow("another teammem command is working on");
    const past = new Date(Date.now() - STALE_MS - 5_000);
    await utimes(layout.lock, past, past);
    const release = await acquireLock(layout);
    await release();
  });
});
