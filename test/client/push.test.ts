/**
 * `teammem push PATH...` (issues 9 and 13): sync just these team files now, without pulling,
 * through the same send path as `sync`.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem } from "../support/cli.js";
import { setup, status, sync, tree } from "../support/clients.js";
import { dumpAllRows } from "../support/server.js";

describe.each(DATABASE_KINDS)("teammem push on %s", (kind) => {
  it("sends only the named file, folder or deletion, without pulling, and leaves the rest for the next sync", async () => {
    const { a, b, envA, envB } = await setup(kind);
    await writeFile(join(a, "team", "one.md"), "one\n");
    await writeFile(join(a, "team", "two.md"), "two\n");
    await mkdir(join(a, "team", "topics"));
    await writeFile(join(a, "team", "topics", "x.md"), "x\n");
    await writeFile(join(a, "team", "topics", "y.md"), "y\n");
    // B has a change A has not pulled yet
    await writeFile(join(b, "team", "from-b.md"), "b\n");
    expect((await sync(b, envB)).code).toBe(0);

    const one = await teammem(["push", "--dir", a, "team/one.md"], envA);
    expect([one.code, one.stdout, one.stderr]).toEqual([0, "pushed team/one.md: applied\n", ""]);
    const folder = await teammem(["push", "--dir", a, join(a, "team", "topics")], envA);
    expect([folder.code, folder.stdout]).toEqual([0, "pushed team/topics/x.md: applied\npushed team/topics/y.md: applied\n"]);
    expect(existsSync(join(a, "team", "from-b.md"))).toBe(false); // no pull
    expect((await status(a)).modified).toEqual(["team/two.md"]);

    expect((await sync(b, envB)).code).toBe(0);
    expect(await tree(b)).toEqual(["team/from-b.md", "team/one.md", "team/topics/x.md", "team/topics/y.md"]);

    await rm(join(a, "team", "one.md"));
    const del = await teammem(["push", "--dir", a, "team/one.md"], envA);
    expect([del.code, del.stdout]).toEqual([0, "pushed team/one.md: applied\n"]);
    expect((await sync(b, envB)).code).toBe(0);
    expect(existsSync(join(b, "team", "one.md"))).toBe(false);

    const nothing = await teammem(["push", "--dir", a, "team/topics/x.md"], envA);
    expect([nothing.code, nothing.stdout]).toEqual([0, "nothing to push for team/topics/x.md (unchanged since the last sync, or already sent)\n"]);
  });

  it("holds back a file with a credential (and keeps other held-back files listed); queues when the server is down", async () => {
    const { server, a, envA } = await setup(kind);
    const secret = fakeGithubPat();
    await writeFile(join(a, "team", "old-leak.md"), `k=${secret}\n`);
    expect((await sync(a, envA)).code).toBe(0);
    await writeFile(join(a, "team", "leak.md"), `# Deploy\ntoken ${secret}\n`);
    const held = await teammem(["push", "--dir", a, "team/leak.md", "--json"], envA);
    expect(held.code).toBe(0);
    expect(JSON.parse(held.stdout)).toMatchObject({
      ok: true,
      applied: [],
      heldBack: [{ path: "team/leak.md", findings: [{ ruleId: "github-pat", line: 2, column: 7 }] }],
    });
    expect(held.stderr).toContain("held back team/leak.md:2 github-pat");
    expect(held.stdout + held.stderr).not.toContain(secret);
    expect((await status(a)).heldBack.map((h: { path: string }) => h.path)).toEqual(["team/leak.md", "team/old-leak.md"]);
    expect(await dumpAllRows(server.database)).not.toContain(secret);

    await server.stop();
    await writeFile(join(a, "team", "notes.md"), "offline edit\n");
    const offline = await teammem(["push", "--dir", a, "team/notes.md"], envA);
    expect(offline.code).toBe(1);
    expect(offline.stderr).toContain("cannot reach server");
    expect(offline.stderr).toContain("1 change(s) stay queued and the next sync or push sends them");
    expect((await status(a)).pending).toEqual([expect.objectContaining({ path: "team/notes.md", kind: "put" })]);
    const offlineJson = await teammem(["push", "--dir", a, "team/notes.md", "--json"], envA);
    expect([offlineJson.code, JSON.parse(offlineJson.stdout)]).toEqual([
      1,
      expect.objectContaining({ ok: false, error: { code: "network_error", message: expect.stringContaining("cannot reach server") }, pending: 1 }),
    ]);
    await server.start();
    const again = await teammem(["push", "--dir", a, "team/notes.md"], envA);
    expect([again.code, again.stdout]).toEqual([0, "pushed team/notes.md: applied\n"]);
    expect(await dumpAllRows(server.database)).toContain("offline edit");
  });

  it("refuses private paths, paths outside the folder and invalid ones with exit 2, sending nothing", async () => {
    const { a, envA } = await setup(kind);
    await writeFile(join(a, "private.md"), "mine\n");
    await writeFile(join(a, "team", "t.md"), "t\n");
    for (const [path, message] of [
      ["private.md", "private.md is private (outside team/)"],
      [join(a, "private.md"), "private.md is private (outside team/)"],
      ["/etc/hosts", "is outside the memory folder"],
      ["team/.git/config", "is not a valid team path"],
    ]) {
      const r = await teammem(["push", "--dir", a, path!], envA);
      expect([r.code, r.stderr]).toEqual([2, expect.stringContaining(message!)]);
    }
    expect((await status(a)).pending).toEqual([]);
    expect(await readFile(join(a, "team", "t.md"), "utf8")).toBe("t\n");
    const none = await teammem(["push", "--dir", a], envA);
    expect(none.code).toBe(2);
  });
});
