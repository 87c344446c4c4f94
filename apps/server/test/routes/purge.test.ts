/**
 * Purge (issue 11): an admin removes content that should never have been stored; afterwards no row
 * of any table and no API response holds it, history keeps a "purged by, reason" placeholder, a
 * purged head becomes a tombstone on the change feed, and the purge is audited.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { issueToken } from "../../src/admin/tokens.js";
import { DATABASE_KINDS, dumpAllRows } from "../../src/testing.js";
import { opId, useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("purge on %s", (kind) => {
  const h = useHarness(kind);

  const batch = (ns: string, token: string, path: string, baseVersion: number, content: string) =>
    h.call("POST", `/v1/namespaces/${ns}/batch`, token, { operations: [{ opId: opId("w"), path, baseVersion, content }] });
  const purge = (ns: string, body: unknown, token = h.tokens.admin) => h.call("POST", `/v1/admin/namespaces/${ns}/purge`, token, body);

  it("removes the content from history, head, conflict records and every reply; history keeps a placeholder; the head becomes a tombstone", async () => {
    const planted = `PLANTED-${randomBytes(8).toString("hex")}`;
    const leaked = `${planted} line\n`;
    await batch("p1", h.tokens.member, "notes.md", 0, "line\n");
    await batch("p1", h.tokens.member, "notes.md", 1, "head line\n");
    const conflict = (await batch("p1", h.tokens.member2, "notes.md", 1, leaked)).json().results[0];
    expect(conflict.status).toBe("conflict");
    expect((await batch("p1", h.tokens.member, "notes.md", 2, leaked)).json().results[0]).toMatchObject({ status: "applied", version: 3 });
    await batch("p1", h.tokens.member, "other.md", 0, "unrelated\n");
    expect(await dumpAllRows({ db: h.db })).toContain(planted);

    const res = await purge("p1", { path: "notes.md", version: 3, reason: "a private note", sameContent: true });
    expect([res.statusCode, res.json()]).toEqual([200, { path: "notes.md", versions: [3], tombstoneVersion: 4, conflicts: 1, operations: 0 }]);

    expect(await dumpAllRows({ db: h.db })).not.toContain(planted);
    const replies = [
      await h.call("GET", "/v1/namespaces/p1/history?path=notes.md", h.tokens.reader),
      await h.call("GET", "/v1/namespaces/p1/version?path=notes.md&version=3", h.tokens.reader),
      await h.call("GET", "/v1/namespaces/p1/entry?path=notes.md", h.tokens.reader),
      await h.call("GET", "/v1/namespaces/p1/changes?since=0", h.tokens.reader),
      await h.call("GET", "/v1/namespaces/p1/conflicts", h.tokens.reader),
      await h.call("GET", "/v1/namespaces/p1/diff?path=notes.md&from=2&to=3", h.tokens.reader),
      await h.call("GET", "/v1/namespaces/p1/heads", h.tokens.reader),
      await h.call("GET", "/v1/admin/audit-events?namespace=p1", h.tokens.admin),
      await h.call("GET", "/v1/admin/audit-events/export?format=csv", h.tokens.admin),
    ];
    for (const r of replies) expect({ url: r.raw.req.url, status: r.statusCode < 400, leak: r.body.includes(planted) }).toEqual({ url: r.raw.req.url, status: true, leak: false });

    const history = replies[0]!.json();
    expect(history.versions.map((v: { version: number; kind: string; deleted: boolean }) => [v.version, v.kind, v.deleted])).toEqual([
      [4, "purge", true],
      [3, "write", false],
      [2, "write", false],
      [1, "write", false],
    ]);
    expect(history.versions[1].purged).toEqual({ by: "ada", at: expect.any(String), reason: "a private note" });
    expect(history.versions[2].purged).toBeUndefined();
    expect(replies[1]!.json()).toMatchObject({ version: 3, content: null, purged: { by: "ada", reason: "a private note" } });
    const changes = replies[3]!.json().changes as { path: string; version: number; deleted: boolean }[];
    expect(changes.filter((c) => c.path === "notes.md").map((c) => [c.version, c.deleted])).toEqual([[4, true]]);
    const [event] = (await h.call("GET", "/v1/admin/audit-events?kind=version_purged", h.tokens.admin)).json().events;
    expect(event).toMatchObject({ actor: "ada", namespace: "p1", path: "notes.md", version: 3, count: 1, reasonText: "a private note" });

    // Purging again changes nothing but is audited again; the other entry is untouched.
    expect((await purge("p1", { path: "notes.md", version: 3, reason: "again" })).json()).toMatchObject({ versions: [], tombstoneVersion: null });
    expect((await h.call("GET", "/v1/namespaces/p1/entry?path=other.md", h.tokens.reader)).json()).toMatchObject({ content: "unrelated\n" });
  });

  it("purges one older version only, keeping the head", async () => {
    const planted = `OLD-${randomBytes(8).toString("hex")}`;
    await batch("p2", h.tokens.member, "a.md", 0, `${planted}\n`);
    await batch("p2", h.tokens.member, "a.md", 1, "clean now\n");
    expect((await purge("p2", { path: "a.md", version: 1, reason: "old leak" })).json()).toEqual({ path: "a.md", versions: [1], tombstoneVersion: null, conflicts: 0, operations: 0 });
    expect(await dumpAllRows({ db: h.db })).not.toContain(planted);
    expect((await h.call("GET", "/v1/namespaces/p2/entry?path=a.md", h.tokens.reader)).json()).toMatchObject({ version: 2, content: "clean now\n" });
  });

  it("is for admins of the namespace's team, and refuses bad input with stable codes, changing nothing", async () => {
    await batch("p3", h.tokens.member, "b.md", 0, "keep me\n");
    const body = { path: "b.md", version: 1, reason: "test" };
    expect((await purge("p3", body, h.tokens.member)).statusCode).toBe(403);
    expect((await purge("p3", body, h.tokens.otherTeam)).statusCode).toBe(403);
    const oscar = (await issueToken(h.db, "test-jwt-secret-".repeat(3), { teamName: "other", userName: "oscar", role: "admin" })).token;
    expect((await purge("p3", body, oscar)).json().code).toBe("not_found");
    const cases: [unknown, number, string][] = [
      [{ ...body, version: 0 }, 400, "invalid_request"],
      [{ ...body, reason: "" }, 400, "invalid_request"],
      [{ path: "b.md", version: 1 }, 400, "invalid_request"],
      [{ ...body, extra: true }, 400, "invalid_request"],
      [{ ...body, path: "../b.md" }, 400, "invalid_path"],
      [{ ...body, version: 9 }, 404, "not_found"],
      [{ ...body, reason: `see ${fakeGithubPat(9)}` }, 422, "secret_detected"],
    ];
    for (const [payload, status, code] of cases) {
      const r = await purge("p3", payload);
      expect({ payload, status: r.statusCode, code: r.json().code }).toEqual({ payload, status, code });
    }
    expect((await purge("nope", body)).json().code).toBe("not_found");
    await batch("p3", h.tokens.member, "b.md", 1, "");
    expect((await h.call("GET", "/v1/namespaces/p3/history?path=b.md", h.tokens.reader)).json().versions.every((v: { purged?: unknown }) => !v.purged)).toBe(true);
    expect((await h.call("GET", "/v1/namespaces/p3/version?path=b.md&version=1", h.tokens.reader)).json().content).toBe("keep me\n");
  });
});
