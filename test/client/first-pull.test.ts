/**
 * try14 F12: a teammate's first sync of a namespace with 3,000 small notes made about one request
 * per file and ran into the server's own rate limit (429 rate_limited, exit 1). The first pull of
 * N files takes O(N / page) requests, on a new folder and on one that already holds some of the
 * files (the reconciliation by content); a 429 with Retry-After is waited for, not a failed sync.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { setup, sync, tree } from "../support/clients.js";

const FILES = 300;

async function writeNotes(dir: string): Promise<void> {
  for (let i = 0; i < FILES; i++) {
    await mkdir(join(dir, "team", `d${i % 10}`), { recursive: true });
    await writeFile(join(dir, "team", `d${i % 10}`, `n${i}.md`), `# note ${i}\n\nline ${i}\n`);
  }
}

describe("a teammate's first pull of a namespace of many files", () => {
  it("pulls 300 files into a new folder in a few requests, under a low rate limit", async () => {
    const { server, a, b, envA, envB } = await setup("pglite", { rateLimitMax: 40, rateLimitWindowMs: 60_000 });
    await writeNotes(a);
    expect((await sync(a, envA)).code).toBe(0);
    const before = server.requests.length;
    const r = await sync(b, envB);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const made = server.requests.slice(before);
    expect(made.length).toBeLessThan(20);
    expect((await tree(b)).filter((p) => p.startsWith("team/"))).toHaveLength(FILES);
    expect(await readFile(join(b, "team", "d7", "n17.md"), "utf8")).toBe("# note 17\n\nline 17\n");
  });

  it("reconciles a folder already holding some of the files in a few requests", async () => {
    const { server, a, b, envA, envB } = await setup("pglite", { rateLimitMax: 40, rateLimitWindowMs: 60_000 });
    await writeNotes(a);
    expect((await sync(a, envA)).code).toBe(0);
    await mkdir(join(b, "team", "d0"), { recursive: true });
    await writeFile(join(b, "team", "d0", "n0.md"), "# note 0\n\nline 0\n");
    const before = server.requests.length;
    const r = await sync(b, envB);
    expect(r.code).toBe(0);
    const made = server.requests.slice(before);
    expect(made.length).toBeLessThan(20);
    expect((await tree(b)).filter((p) => p.startsWith("team/"))).toHaveLength(FILES);
  });
});
