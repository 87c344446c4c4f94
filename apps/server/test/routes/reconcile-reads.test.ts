/** The reads a reconciling client uses (issue 8): every head by path, and versions by content hash. */
import { sha256Hex } from "@teammem/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../src/testing.js";
import { createHarness, opId, type Harness } from "./harness.js";

const prefix = (text: string) => sha256Hex(text).slice(0, 16);

describe.each(DATABASE_KINDS)("heads and versions/find on %s", (kind) => {
  let h: Harness;
  const ns = "/v1/namespaces/rec";
  beforeAll(async () => {
    h = await createHarness(kind);
    const batch = (operations: unknown[]) => h.call("POST", `${ns}/batch`, h.tokens.member, { operations });
    await batch([
      { opId: opId("a1"), path: "a.md", baseVersion: 0, content: "a one\n" },
      { opId: opId("b1"), path: "b.md", baseVersion: 0, content: "b one\n" },
      { opId: opId("c1"), path: "c/d.md", baseVersion: 0, content: "d one\n" },
    ]);
    await batch([
      { opId: opId("a2"), path: "a.md", baseVersion: 1, content: "a two\n" },
      { opId: opId("b2"), path: "b.md", baseVersion: 1, delete: true },
    ]);
  });
  afterAll(() => h?.close());

  it("lists every head in path order with tombstones, page by page, with the namespace cursor", async () => {
    const first = await h.call("GET", `${ns}/heads?limit=2`, h.tokens.reader);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      heads: [
        { path: "a.md", version: 2, sha256: sha256Hex("a two\n"), deleted: false },
        { path: "b.md", version: 2, sha256: null, deleted: true },
      ],
      nextAfter: "b.md",
      cursor: 5,
      server: expect.any(Object),
    });
    const second = await h.call("GET", `${ns}/heads?limit=2&after=b.md`, h.tokens.reader);
    expect(second.json()).toMatchObject({ heads: [{ path: "c/d.md", version: 1, sha256: sha256Hex("d one\n"), deleted: false }], nextAfter: null, cursor: 5 });
  });

  it("finds per path the newest live version whose hash starts with a candidate, leaving out paths without one", async () => {
    const res = await h.call("POST", `${ns}/versions/find`, h.tokens.reader, {
      paths: [
        { path: "a.md", candidates: [prefix("a one\n"), prefix("a two\n")] },
        { path: "b.md", candidates: [prefix("b one\n")] },
        { path: "c/d.md", candidates: [prefix("never written\n")] },
        { path: "nowhere.md", candidates: [prefix("a one\n")] },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      found: [
        { path: "a.md", version: 2, sha256: sha256Hex("a two\n") },
        { path: "b.md", version: 1, sha256: sha256Hex("b one\n") },
      ],
      server: expect.any(Object),
    });
  });

  it.each([
    ["a candidate that is not 16 hex digits", { paths: [{ path: "a.md", candidates: ["xyz"] }] }, "invalid_request"],
    ["no candidates", { paths: [{ path: "a.md", candidates: [] }] }, "invalid_request"],
    ["more than 200 paths", { paths: Array.from({ length: 201 }, (_, i) => ({ path: `p${i}.md`, candidates: [prefix("x")] })) }, "invalid_request"],
    ["a path breaking the path rules", { paths: [{ path: "../x.md", candidates: [prefix("x")] }] }, "invalid_path"],
  ])("refuses a versions/find body with %s", async (_name, body, code) => {
    const res = await h.call("POST", `${ns}/versions/find`, h.tokens.reader, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe(code);
  });

  it.each([
    ["limit=0", "invalid_request"],
    ["limit=1001", "invalid_request"],
    ["after=%2Fabs", "invalid_path"],
    ["unknown=1", "invalid_request"],
  ])("refuses heads?%s", async (query, code) => {
    const res = await h.call("GET", `${ns}/heads?${query}`, h.tokens.reader);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe(code);
  });

  it("answers 404 for another team's namespace", async () => {
    expect((await h.call("GET", `${ns}/heads`, h.tokens.otherTeam)).statusCode).toBe(404);
    expect((await h.call("POST", `${ns}/versions/find`, h.tokens.otherTeam, { paths: [{ path: "a.md", candidates: [prefix("a one\n")] }] })).statusCode).toBe(404);
  });
});
