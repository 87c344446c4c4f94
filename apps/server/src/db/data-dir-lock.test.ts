import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { spawnSync } from "node:child_process";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { DataDirLockedError, HOLDER_NAME, LOCK_NAME, acquireDataDirLock } from "./data-dir-lock.js";

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "teammem-lock-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const deadPid = () => spawnSync(process.execPath, ["-e", "0"]).pid!;
const holderOf = (dir: string) => JSON.parse(readFileSync(join(dir, HOLDER_NAME), "utf8"));

async function lockedError(promise: Promise<unknown>): Promise<DataDirLockedError> {
  const e = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(DataDirLockedError);
  return e as DataDirLockedError;
}

describe("the embedded data folder's lock", () => {
  it("writes the holder's details beside the lock, refuses a second holder in the same process naming them, and removes both at release", async () => {
    const dir = await dataDir();
    const lock = await acquireDataDirLock(dir, "server");
    expect(existsSync(join(dir, LOCK_NAME))).toBe(true);
    await lock.update({ url: "http://127.0.0.1:8080" });
    expect(holderOf(dir)).toEqual({ pid: process.pid, host: hostname(), purpose: "server", url: "http://127.0.0.1:8080", startedAt: expect.any(String) });
    const refused = await lockedError(acquireDataDirLock(dir, "token create"));
    expect(refused.holder).toEqual(holderOf(dir));
    expect(refused.message).toBe(`the data folder ${dir} is in use by a running teammem-server (pid ${process.pid}, http://127.0.0.1:8080)`);
    await lock.release();
    await lock.release(); // idempotent
    expect(existsSync(join(dir, LOCK_NAME))).toBe(false);
    expect(existsSync(join(dir, HOLDER_NAME))).toBe(false);
    await (await acquireDataDirLock(dir, "migrate")).release();
  });

  it("takes over a lock not refreshed for 30 s whose holder is gone", async () => {
    const dir = await dataDir();
    mkdirSync(join(dir, LOCK_NAME));
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(join(dir, LOCK_NAME), longAgo, longAgo);
    writeFileSync(join(dir, HOLDER_NAME), JSON.stringify({ pid: deadPid(), host: hostname(), purpose: "server", startedAt: longAgo.toISOString() }));
    const lock = await acquireDataDirLock(dir, "migrate");
    expect(holderOf(dir)).toMatchObject({ pid: process.pid, purpose: "migrate" });
    await lock.release();
  });

  it("refuses a fresh lock held on another machine, whatever its pid", async () => {
    const dir = await dataDir();
    mkdirSync(join(dir, LOCK_NAME));
    writeFileSync(join(dir, HOLDER_NAME), JSON.stringify({ pid: deadPid(), host: "elsewhere.example", purpose: "server", startedAt: "x" }));
    const refused = await lockedError(acquireDataDirLock(dir, "migrate"));
    expect(refused.message).toMatch(/in use by a running teammem-server \(pid \d+ on elsewhere\.example\)$/);
  });

  it("refuses a fresh lock whose holder wrote no details, naming no one", async () => {
    const dir = await dataDir();
    mkdirSync(join(dir, LOCK_NAME));
    const refused = await lockedError(acquireDataDirLock(dir, "migrate"));
    expect(refused.holder).toBeNull();
    expect(refused.message).toBe(`the data folder ${dir} is in use by another process`);
  });

  it("removes an older server's lock file whose process is gone, and refuses one whose process lives", async () => {
    const dir = await dataDir();
    const legacy = (pid: number) => writeFileSync(join(dir, LOCK_NAME), JSON.stringify({ pid, purpose: "server", startedAt: "x" }));
    legacy(process.pid);
    expect((await lockedError(acquireDataDirLock(dir, "migrate"))).holder).toMatchObject({ pid: process.pid });
    legacy(deadPid());
    const lock = await acquireDataDirLock(dir, "migrate");
    expect(holderOf(dir)).toMatchObject({ pid: process.pid, purpose: "migrate" });
    await lock.release();
  });
});
