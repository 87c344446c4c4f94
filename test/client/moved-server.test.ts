/**
 * try15 F5: a server that moved. `teammem init --server NEW --moved` points a set-up folder at the
 * new URL and keeps its namespace, client id, token, queued edits and sync state; without
 * `--moved` init refuses and names it. The next sync carries on when NEW serves the same database
 * and reconciles by content when it is another one.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { buildApp } from "@teammem/server";
import { teammem } from "../support/cli.js";
import { setup, sync, syncJson } from "../support/clients.js";
import { JWT_SECRET, reopenableListener, startTestServer, versionsOf } from "../support/server.js";

const configOf = async (dir: string) => JSON.parse(await readFile(join(dir, ".teammem", "config.json"), "utf8")) as Record<string, unknown>;
const queued = async (dir: string) => (await readdir(join(dir, ".teammem", "outbox"))).filter((n) => n.endsWith(".json"));

/** A's note.md synced, then an edit queued while the old URL answers no more. */
async function movedWithQueuedEdit() {
  const clients = await setup("pglite");
  const { server, a, envA } = clients;
  await writeFile(join(a, "team", "note.md"), "v0\n");
  expect((await sync(a, envA)).code).toBe(0);
  await server.stop();
  await writeFile(join(a, "team", "note.md"), "v1 queued while the server moved\n");
  expect((await teammem(["push", "--dir", a, "team/note.md"], envA)).code).toBe(1); // unreachable: stays queued
  expect(await queued(a)).toHaveLength(1);
  return clients;
}

describe("teammem init --moved", () => {
  it("the same database at a new URL: init without --moved refuses naming it; with it the queued edit is sent, no reconciliation", async () => {
    const { server, a, envA } = await movedWithQueuedEdit();
    const moved = reopenableListener(() => buildApp({ db: server.database.db, jwtSecret: JWT_SECRET, limits: { rateLimitMax: 0 } }));
    await moved.start();
    onTestFinished(() => moved.stop());
    const before = await configOf(a);

    const refused = await teammem(["init", "--dir", a, "--server", moved.url(), "--namespace", "acme-web"], envA);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`if the server moved to ${moved.url()}, run teammem init --server ${moved.url()} --moved`);
    expect(await configOf(a)).toEqual(before);

    const r = await teammem(["init", "--dir", a, "--server", moved.url(), "--moved", "--json"], envA);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, created: false, movedFrom: server.url, server: moved.url(), namespace: "acme-web", reached: true });
    expect(await configOf(a)).toEqual({ ...before, server: moved.url() }); // client id, namespace, fingerprint key kept
    expect(await queued(a)).toHaveLength(1);

    const run = await syncJson(a, envA);
    expect(run.code).toBe(0);
    expect(run.json.pushed.applied).toEqual(["team/note.md"]);
    expect(run.json.events.filter((e: { type: string }) => e.type === "reconciled")).toEqual([]);
    expect((await versionsOf(server.database, "note.md")).map((v) => v.content)).toEqual(["v0\n", "v1 queued while the server moved\n"]);
  }, 300_000);

  it("another database at the new URL: the next sync reconciles by content and the server gets the folder's files", async () => {
    const { a } = await movedWithQueuedEdit();
    const other = await startTestServer("pglite");
    onTestFinished(() => other.dispose());
    const token = await other.token("alice");
    const r = await teammem(["init", "--dir", a, "--server", other.url, "--moved", "--token", token]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("queued edits and sync state kept");
    const run = await syncJson(a, {});
    expect(run.code).toBe(0);
    expect(run.json.events).toContainEqual(expect.objectContaining({ type: "reconciled", reason: expect.stringContaining("another one than this folder synced with") }));
    expect((await versionsOf(other.database, "note.md")).map((v) => v.content)).toEqual(["v1 queued while the server moved\n"]);
    expect((await syncJson(a, {})).json.events).toEqual([]);
  }, 300_000);

  it("is a usage error on a folder not set up, and with another namespace than the folder's", async () => {
    const { server, a, envA } = await setup("pglite");
    const fresh = join(a, "..", "fresh");
    const notSetUp = await teammem(["init", "--dir", fresh, "--server", server.url, "--namespace", "acme-web", "--moved"], envA);
    expect([notSetUp.code, notSetUp.stderr]).toEqual([2, expect.stringContaining("is not set up yet: run teammem init without --moved")]);
    const before = await configOf(a);
    const other = await teammem(["init", "--dir", a, "--server", "http://127.0.0.1:1234", "--namespace", "acme-other", "--moved"], envA);
    expect([other.code, other.stderr]).toEqual([2, expect.stringContaining("is already set up for namespace acme-web")]);
    expect(await configOf(a)).toEqual(before);
  }, 300_000);

  it("says a failed --moved changed nothing, and which server the folder still points at, never 'nothing was set up' (try17 L4)", async () => {
    const { server, a, envA } = await setup("pglite");
    const before = await readFile(join(a, ".teammem", "config.json"), "utf8");
    const r = await teammem(["init", "--dir", a, "--server", `${server.url}/elsewhere`, "--moved"], envA);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`nothing was changed (the folder still points at ${server.url}, namespace acme-web)`);
    expect(r.stderr).not.toContain("nothing was set up");
    expect(await readFile(join(a, ".teammem", "config.json"), "utf8")).toBe(before);
  });
});

