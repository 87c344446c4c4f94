/**
 * Purge reaches teammates (issue 11): after an admin purges the head of an entry, a teammate's next
 * sync deletes the file holding the purged content (the tombstone of kind purge on the change feed);
 * a purge of an older version is announced too (the head moves to a new cursor with `purged`), and
 * every client drops its copies of the content (base copies, conflict copies) and prints a line,
 * `teammem sync` at its next run and `teammem watch` live.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { layoutOf, Watch, type LiveEvent } from "@teammem/client";
import { sha256Hex } from "@teammem/protocol";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync } from "../support/clients.js";
import { dumpAllRows } from "../support/server.js";

/** Polls `check` until it returns something truthy (every 50 ms, at most 20 s). */
async function until<T>(what: string, check: () => T | Promise<T>): Promise<NonNullable<T>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function purge(url: string, token: string, body: object): Promise<unknown> {
  const res = await fetch(`${url}/v1/admin/namespaces/acme-web/purge`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

describe.each(DATABASE_KINDS)("purge seen by clients on %s", (kind) => {
  it("deletes the purged file on a teammate's next sync, and the content is gone from the server", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    const admin = await server.token("ada", "default", "admin");
    await writeFile(join(a, "team", "private.md"), "PRIVATE-c0ffee note\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    expect(existsSync(join(b, "team", "private.md"))).toBe(true);
    const res = await fetch(`${server.url}/v1/admin/namespaces/acme-web/purge`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ path: "private.md", version: 1, reason: "private note" }),
    });
    expect(await res.json()).toMatchObject({ versions: [1], tombstoneVersion: 2 });
    expect((await sync(b, envB)).code).toBe(0);
    expect(existsSync(join(b, "team", "private.md"))).toBe(false);
    expect((await sync(a, envA)).code).toBe(0);
    expect(existsSync(join(a, "team", "private.md"))).toBe(false);
    expect(await dumpAllRows(server.database)).not.toContain("PRIVATE-c0ffee");
  });
});

describe.each(DATABASE_KINDS)("purge of an older version on %s", (kind) => {
  it("is announced on the change feed: a teammate behind drops its base copy, a conflict copy holding it is dropped, both print a line", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    const admin = await server.token("ada", "default", "admin");
    const leaked = "deploy notes\nPRIVATE-5ca1ab1e leaked line\n";
    await writeFile(join(a, "team", "deploy.md"), leaked);
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    const baseCopy = join(b, ".teammem", "bases", sha256Hex(leaked));
    expect(existsSync(baseCopy)).toBe(true);
    // B also keeps the leaked text as its side of an (earlier) conflict.
    const copy = join(".teammem", "conflicts", "c-1", "deploy.md");
    await mkdir(join(b, ".teammem", "conflicts", "c-1"), { recursive: true });
    await writeFile(join(b, copy), leaked);
    const record = { path: "deploy.md", conflictId: null, headVersion: 1, copy, at: new Date().toISOString(), author: "alice" };
    await writeFile(join(b, ".teammem", "conflicts.json"), JSON.stringify({ entries: [record] }));
    await writeFile(join(a, "team", "deploy.md"), "deploy notes\n");
    expect((await sync(a, envA)).code).toBe(0); // v2, the head; v1 is history

    expect(await purge(server.url, admin, { path: "deploy.md", version: 1, reason: "leaked line" })).toMatchObject({ versions: [1], tombstoneVersion: null });
    const changes = (await (await fetch(`${server.url}/v1/namespaces/acme-web/changes?since=0`, { headers: { authorization: `Bearer ${envA.TEAMMEM_TOKEN}` } })).json()) as { changes: unknown[] };
    expect(changes.changes).toEqual([
      expect.objectContaining({ path: "deploy.md", version: 2, purged: { versions: [1], sha256: [sha256Hex(leaked)], by: "ada", at: expect.any(String), reason: "leaked line" } }),
    ]);

    const bSync = await sync(b, envB);
    expect(bSync.code).toBe(0);
    expect(bSync.stdout).toContain("team/deploy.md: version v1 purged from the server's history by ada (leaked line); 2 local copies of that content dropped");
    expect(existsSync(baseCopy)).toBe(false);
    expect(existsSync(join(b, copy))).toBe(false);
    expect(JSON.parse(await readFile(join(b, ".teammem", "conflicts.json"), "utf8")).entries).toEqual([{ ...record, copy: null }]);
    expect(await readFile(join(b, "team", "deploy.md"), "utf8")).toBe("deploy notes\n");
    // A held nothing of it (its bases moved on) and is told once; a later sync is quiet.
    const aSync = await sync(a, envA);
    expect(aSync.stdout).toContain("team/deploy.md: version v1 purged from the server's history by ada (leaked line)\n");
    expect((await sync(a, envA)).stdout).not.toContain("purged");
    expect((await sync(b, envB)).stdout).not.toContain("purged");
    expect(await dumpAllRows(server.database)).not.toContain("PRIVATE-5ca1ab1e");
  });
});

describe.each(DATABASE_KINDS)("a local edit on a purged base on %s", (kind) => {
  it("is merged without the base at the next pull (issue 8): every difference between conflict markers, the event printed, status lists the file", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    const admin = await server.token("ada", "default", "admin");
    await writeFile(join(a, "team", "deploy.md"), "# Deploy\nold private step\nrun the tests\n");
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    await writeFile(join(a, "team", "deploy.md"), "# Deploy\nrun the tests\nship on friday\n");
    expect((await sync(a, envA)).code).toBe(0); // v2; B's base is v1
    await writeFile(join(b, "team", "deploy.md"), "# Deploy\nold private step\nrun the tests\nask bob first\n");
    expect(await purge(server.url, admin, { path: "deploy.md", version: 1, reason: "private step" })).toMatchObject({ versions: [1], tombstoneVersion: null });

    const bSync = await sync(b, envB);
    expect(bSync.code).toBe(0);
    expect(await readFile(join(b, "team", "deploy.md"), "utf8")).toBe(
      [
        "# Deploy",
        "<<<<<<< yours (local)",
        "old private step",
        "||||||| base v1 (purged from the server's history)",
        "=======",
        ">>>>>>> alice (v2)",
        "run the tests",
        "<<<<<<< yours (local)",
        "ask bob first",
        "||||||| base v1 (purged from the server's history)",
        "=======",
        "ship on friday",
        ">>>>>>> alice (v2)",
        "",
      ].join("\n"),
    );
    expect(bSync.stdout).toContain(
      "team/deploy.md: your edit and alice's edit (v2) cannot be merged line by line (v1, the version both started from, was purged from the server's history): where they differ, both are in the file between <<<<<<< and >>>>>>> markers",
    );
    expect((await status(b)).conflicts).toEqual([
      expect.objectContaining({ path: "team/deploy.md", conflictId: null, headVersion: 2, author: "alice", state: "markers", markersAt: 2, basePurged: 1 }),
    ]);
    expect((await teammem(["status", "--dir", b, "--offline"])).stdout).toContain(
      "team/deploy.md: conflict markers from line 2 (yours and alice's version 2; v1, the version both started from, was purged from the server's history); not sent until they are gone",
    );
    // Not pushed while the markers are in the file; once settled, it goes up as a fast-forward of v2.
    expect((await sync(b, envB)).code).toBe(0);
    expect((await sync(a, envA)).code).toBe(0);
    expect(await readFile(join(a, "team", "deploy.md"), "utf8")).toBe("# Deploy\nrun the tests\nship on friday\n");
    await writeFile(join(b, "team", "deploy.md"), "# Deploy\nrun the tests\nship on friday\nask bob first\n");
    expect((await sync(b, envB)).code).toBe(0);
    expect((await sync(a, envA)).code).toBe(0);
    expect(await readFile(join(a, "team", "deploy.md"), "utf8")).toBe("# Deploy\nrun the tests\nship on friday\nask bob first\n");
  });
});

describe("purge seen by teammem watch", () => {
  it("logs the purge of an older version live, and deletes a purged head's file", async () => {
    const { server, a, b, envA } = await setup("postgres");
    const admin = await server.token("ada", "default", "admin");
    await writeFile(join(a, "team", "n.md"), "PRIVATE-0ddba11 one\n");
    expect((await sync(a, envA)).code).toBe(0);
    await writeFile(join(a, "team", "n.md"), "two\n");
    expect((await sync(a, envA)).code).toBe(0);
    const events: LiveEvent[] = [];
    const w = new Watch(layoutOf(b), { token: await server.token("bob"), log: (e) => events.push(e), backoff: { baseMs: 100, capMs: 1000 } });
    await w.start();
    onTestFinished(() => w.stop().then(() => undefined));
    await until("the live stream", () => events.some((e) => e.type === "connected"));
    await until("n.md on B", async () => existsSync(join(b, "team", "n.md")) && (await readFile(join(b, "team", "n.md"), "utf8")) === "two\n");
    const purges = () => events.flatMap((e) => (e.type === "sync-event" && e.event.type === "purged" ? [e.event] : []));
    expect(purges()).toEqual([]);

    await purge(server.url, admin, { path: "n.md", version: 1, reason: "private note" });
    await until("the purge logged", () => purges().length === 1);
    expect(purges()).toEqual([{ type: "purged", path: "team/n.md", versions: [1], by: "ada", reason: "private note", dropped: 0 }]);

    await purge(server.url, admin, { path: "n.md", version: 2, reason: "all of it" });
    await until("n.md deleted on B", () => !existsSync(join(b, "team", "n.md")));
    await until("the second purge logged", () => purges().length === 2);
    expect(purges()[1]).toEqual({ type: "purged", path: "team/n.md", versions: [1, 2], by: "ada", reason: "all of it", dropped: 1 });
  });
});
