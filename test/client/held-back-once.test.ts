/**
 * One "held back" line per held-back file per run (try13 F2): a sync that first replays work queued
 * earlier (the server was down) queues in a second round, which met the held-back file again and
 * printed its line twice.
 */
import { appendFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { setup, sync, syncJson } from "../support/clients.js";

const heldLines = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("teammem: held back "));

describe("the held-back line of a sync", () => {
  it("is printed once when queued work is replayed in the same run", { timeout: 180_000 }, async () => {
    const { server, a, envA } = await setup("pglite");
    await writeFile(join(a, "team", "fine.md"), "one\n");
    expect((await sync(a, envA)).code).toBe(0);

    await server.stop();
    await appendFile(join(a, "team", "fine.md"), "two\n");
    await writeFile(join(a, "team", "secret.md"), `deploy key\n${fakeGithubPat(21)}\n`);
    const offline = await sync(a, envA);
    expect(offline.code).toBe(1);
    expect(heldLines(offline.stderr)).toEqual([expect.stringMatching(/^teammem: held back team\/secret\.md:2 github-pat \(.*\) fingerprint [0-9a-f]{32}$/)]);

    await server.start();
    await appendFile(join(a, "team", "fine.md"), "three\n"); // queued earlier and changed since: a second round
    const replayed = await syncJson(a, envA);
    expect(replayed.code).toBe(0);
    expect(replayed.json).toMatchObject({ pushed: { applied: ["team/fine.md"] }, heldBack: [{ path: "team/secret.md" }], pending: 0 });
    expect(heldLines(replayed.stderr)).toEqual([expect.stringMatching(/^teammem: held back team\/secret\.md:2 github-pat \(.*\) fingerprint [0-9a-f]{32}$/)]);
    expect(replayed.json.warnings.filter((w: string) => w.startsWith("held back "))).toHaveLength(1);
  });
});
