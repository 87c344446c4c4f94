/**
 * Namespaces differing only by letter case or a trailing `.git` (try20 F5): `ACME/Web` or
 * `acme/web.git` beside the team's `acme/web` is refused with 409 namespace_name_conflict naming the
 * existing name, on PUT and on a batch's implicit creation, and creates nothing; twins stored
 * before the check keep working under their own names.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { namespaces, teams } from "../../src/db/schema.js";
import { DATABASE_KINDS } from "../../src/testing.js";
import { opId, useHarness } from "./harness.js";

const enc = encodeURIComponent;

describe.each(DATABASE_KINDS)("namespace names of one fold key on %s", (kind) => {
  const h = useHarness(kind);
  const names = async () => (await h.call("GET", "/v1/namespaces", h.tokens.reader)).json().namespaces.map((n: { name: string }) => n.name);

  it.each(["ACME/Web", "acme/WEB", "acme/web.git", "Acme/Web.GIT"])("refuses to create %s beside acme/web with 409 namespace_name_conflict and creates nothing", async (twin) => {
    await h.one(enc("acme/web"), { opId: opId("w"), path: "a.md", baseVersion: 0, content: "team memory\n" });
    const before = await names();
    const put = await h.call("PUT", `/v1/namespaces/${enc(twin)}`, h.tokens.member);
    expect([put.statusCode, put.json()]).toEqual([
      409,
      {
        code: "namespace_name_conflict",
        message: "namespace acme/web exists; names differing only by letter case or a trailing .git are one namespace: use acme/web",
        details: { existing: "acme/web" },
      },
    ]);
    const batch = await h.call("POST", `/v1/namespaces/${enc(twin)}/batch`, h.tokens.member, {
      operations: [{ opId: opId("t"), path: "b.md", baseVersion: 0, content: "lost?\n" }],
    });
    expect([batch.statusCode, batch.json().code, batch.json().details]).toEqual([409, "namespace_name_conflict", { existing: "acme/web" }]);
    expect(await names()).toEqual(before);
  });

  it("creates names whose fold only looks alike: look/d beside look/digit, look/web beside look/webgit and look/web.git.git", async () => {
    for (const name of ["look/digit", "look/webgit", "look/web.git.git"]) expect((await h.call("PUT", `/v1/namespaces/${enc(name)}`, h.tokens.member)).statusCode).toBe(201);
    for (const name of ["look/d", "look/web"]) {
      const put = await h.call("PUT", `/v1/namespaces/${enc(name)}`, h.tokens.member);
      expect([name, put.statusCode, put.json().created]).toEqual([name, 201, true]);
    }
  });

  it("answers PUT of an existing namespace 200 with created false and its live entry count", async () => {
    await h.one(enc("count/me"), { opId: opId("c1"), path: "a.md", baseVersion: 0, content: "a\n" });
    await h.one(enc("count/me"), { opId: opId("c2"), path: "b.md", baseVersion: 0, content: "b\n" });
    const put = await h.call("PUT", `/v1/namespaces/${enc("count/me")}`, h.tokens.member);
    expect([put.statusCode, put.json()]).toEqual([200, { name: "count/me", cursor: 2, created: false, entries: 2, server: expect.objectContaining({ epoch: expect.any(String) }) }]);
  });

  it("keeps a name whose fold differs (acme/webs, acme-web) creatable", async () => {
    await h.call("PUT", `/v1/namespaces/${enc("keep/web")}`, h.tokens.member);
    for (const ns of ["keep/webs", "keep-web", "keep/web.gitx"]) {
      expect((await h.call("PUT", `/v1/namespaces/${enc(ns)}`, h.tokens.member)).statusCode).toBe(201);
    }
  });

  it("lets another team create the same folded name", async () => {
    await h.call("PUT", `/v1/namespaces/${enc("shared/name")}`, h.tokens.member);
    const other = await h.call("PUT", `/v1/namespaces/${enc("Shared/Name")}`, h.tokens.otherTeam);
    expect(other.statusCode).toBe(201);
  });

  it("keeps serving twins stored before the check under their own names, and refuses a third spelling", async () => {
    const [team] = await h.db.select({ id: teams.id }).from(teams).where(eq(teams.name, "acme"));
    await h.db.insert(namespaces).values([
      { teamId: team!.id, name: "old/twin" },
      { teamId: team!.id, name: "Old/Twin" },
    ]);
    for (const ns of ["old/twin", "Old/Twin"]) {
      expect((await h.call("PUT", `/v1/namespaces/${enc(ns)}`, h.tokens.member)).statusCode).toBe(200);
      expect(await h.one(enc(ns), { opId: opId("o"), path: "who.md", baseVersion: 0, content: ns })).toMatchObject({ status: "applied", version: 1 });
    }
    for (const ns of ["old/twin", "Old/Twin"]) {
      expect((await h.call("GET", `/v1/namespaces/${enc(ns)}/entry?path=who.md`, h.tokens.reader)).json()).toMatchObject({ content: ns });
    }
    const third = await h.call("PUT", `/v1/namespaces/${enc("OLD/twin")}`, h.tokens.member);
    expect([third.statusCode, third.json().code]).toEqual([409, "namespace_name_conflict"]);
    expect(["old/twin", "Old/Twin"]).toContain(third.json().details.existing);
  });

  it("creates exactly one of two spellings raced at once", async () => {
    const results = await Promise.all(["race/web", "Race/Web", "race/web.git", "RACE/WEB"].map((ns) => h.call("PUT", `/v1/namespaces/${enc(ns)}`, h.tokens.member)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409]);
    expect((await names()).filter((n: string) => n.toLowerCase().startsWith("race/"))).toHaveLength(1);
  });
});
