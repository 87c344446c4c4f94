/**
 * try22 T3: a write killed midway (a pull killed while writing team files) leaves its temporary file
 * `team/**\/.teammem-tmp-<16 hex>`. The next run holding the folder's command lock (sync, push,
 * watch) removes it: every writer of such files in team/ holds that lock. A name merely resembling
 * it is not the client's own: left alone and reported as skipped, as before.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync } from "../support/clients.js";

const LEFTOVER = ".teammem-tmp-e426b04dcc024da7";
/** Names starting with the reserved prefix but not written by the client. */
const RESEMBLING = [".teammem-tmp-E426B04DCC024DA7", ".teammem-tmp-e426b04dcc024da", ".teammem-tmp-e426b04dcc024da70", ".teammem-tmp-notes", ".teammem-tmp-case-1a2b3c4d-aB-x"];

describe.each(DATABASE_KINDS)("leftover temporary files in team/ on %s (try22 T3)", (kind) => {
  it("the next sync removes the client's own leftover temporary file; status is clean; resembling names are untouched", async () => {
    const { a, b, envA, envB } = await setup(kind);
    await mkdir(join(a, "team", "z"), { recursive: true });
    await writeFile(join(a, "team", "z", "n1.md"), "one\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);

    // What a pull killed mid-write leaves: the temporary file beside the pulled one.
    await writeFile(join(b, "team", "z", LEFTOVER), "half a not");
    const next = await sync(b, envB);
    expect(next.code).toBe(0);
    expect(next.stdout + next.stderr).not.toContain(".teammem-tmp-");
    expect(existsSync(join(b, "team", "z", LEFTOVER))).toBe(false);
    expect((await status(b)).skipped).toEqual([]);
    const text = await teammem(["status", "--dir", b, "--offline"]);
    expect(text.stdout).not.toContain("skipped");

    for (const name of RESEMBLING) await writeFile(join(b, "team", "z", name), "mine\n");
    expect((await sync(b, envB)).code).toBe(0);
    for (const name of RESEMBLING) expect(await readFile(join(b, "team", "z", name), "utf8")).toBe("mine\n");
    expect((await status(b)).skipped.map((s: { path: string }) => s.path).sort()).toEqual(RESEMBLING.map((n) => `team/z/${n}`).sort());
  });

  it("teammem push removes one under the pushed path too; status alone (no lock) removes nothing", async () => {
    const { a, envA } = await setup(kind);
    await mkdir(join(a, "team", "z"), { recursive: true });
    await writeFile(join(a, "team", "z", "n1.md"), "one\n");
    await writeFile(join(a, "team", "z", LEFTOVER), "half");
    expect((await status(a)).skipped.map((s: { path: string }) => s.path)).toEqual([`team/z/${LEFTOVER}`]);
    expect(existsSync(join(a, "team", "z", LEFTOVER))).toBe(true);
    const pushed = await teammem(["push", "team/z", "--dir", a], envA);
    expect(pushed.code).toBe(0);
    expect(existsSync(join(a, "team", "z", LEFTOVER))).toBe(false);
    expect((await status(a)).skipped).toEqual([]);
  });
});
