/**
 * The client's reply bound follows the server's entry limit (try15 F11 follow-up): a server
 * configured with a larger `maxEntryBytes` (TEAMMEM_MAX_ENTRY_BYTES) sends pages of changes larger
 * than the bound made for its default (160 MiB for 256 KiB), and must still be readable. The
 * bound while the limit is unknown is scaled down here (`maxReplyBytes`, 1 MiB) so that a page of a
 * few large entries passes it, as 640 entries of 256 KiB would pass 160 MiB at the real scale.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApi, layoutOf, syncFolder } from "@teammem/client";
import { setup, sync } from "../support/clients.js";

const KiB = 1024;

describe("the reply bound follows the server's entry limit", () => {
  it("a page of changes over the default bound from a server with a 4x entry limit is read and written", async () => {
    const { server: teamServer, a, b, envA } = await setup("pglite", { maxEntryBytes: 1024 * KiB, maxBodyBytes: 8 * 1024 * KiB });
    const files = ["one", "two", "three"].map((name, i) => ({ name: `${name}.txt`, text: `${String.fromCharCode(97 + i)}`.repeat(900 * KiB) + "\n" }));
    for (const f of files) await writeFile(join(a, "team", f.name), f.text);
    expect((await sync(a, envA)).code).toBe(0);

    // B pulls the three (2.7 MB in one page of changes) with the bound for an unknown limit at 1 MiB.
    const { server, namespace, token } = JSON.parse(await readFile(join(b, ".teammem", "config.json"), "utf8")) as { server: string; namespace: string; token: string };
    const api = createApi({ server, namespace, token, maxReplyBytes: 1024 * KiB, retry: { limit: 0 } });
    const summary = await syncFolder(layoutOf(b), { token, api, batchSize: 10, pullPageSize: 500 });
    expect(summary.error).toBeUndefined();
    expect(summary.pulled.written.sort()).toEqual(files.map((f) => `team/${f.name}`).sort());
    for (const f of files) expect(await readFile(join(b, "team", f.name), "utf8")).toBe(f.text);
    // 500 entries of 1 MiB + 25 % + 4 KiB would be 627 MiB: the bound stops at its ceiling, 500 MiB.
    expect(api.replies.maxBytes).toBe(500 * 1024 * KiB);
    const perReply = Math.floor((500 * 1024 * KiB) / (1.25 * 1024 * KiB + 4 * KiB));
    expect([api.replies.entriesPerReply, perReply]).toEqual([perReply, 398]);
    // ...so B asked for pages of 398 changes, not 500: a full page still fits under the ceiling.
    expect(teamServer.requests.filter((r) => r.includes("/changes?")).at(-1)).toMatch(/[?&]limit=398(&|$)/);
  }, 300_000);
});
