/**
 * Entry paths with a bidi control or another invisible character (try17 M4): refused as a new
 * name by every write route, while an entry stored under such a name before the rule stays
 * readable, deletable and renamable to a valid name.
 */
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../src/testing.js";
import { opId, useHarness } from "./harness.js";

const rlo = String.fromCodePoint(0x202e);
const zwsp = String.fromCodePoint(0x200b);
const trojan = `a/team/${rlo}evil.md`;

describe.each(DATABASE_KINDS)("paths with invisible characters on %s", (kind) => {
  const h = useHarness(kind);
  const url = (ns: string, route: string, path: string) => `/v1/namespaces/${ns}/${route}?path=${encodeURIComponent(path)}`;
  const put = (path: string, baseVersion: number, content: string) => ({ opId: opId("put"), path, baseVersion, content });
  const changes = async (ns: string) => (await h.call("GET", `/v1/namespaces/${ns}/changes`, h.tokens.member)).json().changes as { path: string }[];


  it("refuses a batch put of a Trojan-Source name with invalid_path rule bidi_control and stores nothing", async () => {
    const ns = `inv-batch-${kind}`;
    const results = await h.batch(ns, [put(trojan, 0, "hi\n"), put(`notes/a${zwsp}.md`, 0, "hi\n")]);
    expect(results).toEqual([
      { opId: expect.any(String), path: trojan, status: "rejected", code: "invalid_path", message: expect.stringContaining("holds U+202E RIGHT-TO-LEFT OVERRIDE, a bidi control"), details: { rule: "bidi_control" } },
      { opId: expect.any(String), path: `notes/a${zwsp}.md`, status: "rejected", code: "invalid_path", message: expect.stringContaining("holds U+200B ZERO WIDTH SPACE"), details: { rule: "invisible_character" } },
    ]);
    expect(await changes(ns)).toEqual([]);
  });

  it("refuses a compare-and-set write and a rename to such a name with 400 / invalid_path, storing nothing", async () => {
    const ns = `inv-cas-${kind}`;
    const res = await h.call("PUT", url(ns, "entry", trojan), h.tokens.member, { baseVersion: 0, content: "hi\n" });
    expect([res.statusCode, res.json()]).toEqual([400, { code: "invalid_path", message: expect.stringContaining("U+202E"), details: { rule: "bidi_control" } }]);
    expect((await h.one(ns, put("ok.md", 0, "ok\n"))).status).toBe("applied");
    const renamed = await h.one(ns, { ...put(`ok${zwsp}.md`, 0, "ok\n"), renameFrom: "ok.md", renameFromVersion: 1 });
    expect(renamed).toMatchObject({ status: "rejected", code: "invalid_path", details: { rule: "invisible_character" } });
    expect((await changes(ns)).map((c) => c.path)).toEqual(["ok.md"]);
  });

  it("keeps an entry stored before the rule readable and renamable to a valid name", async () => {
    const ns = `inv-legacy-mv-${kind}`;
    await h.storeLegacy(ns, trojan);
    const read = await h.call("GET", url(ns, "entry", trojan), h.tokens.member);
    expect([read.statusCode, read.json()]).toEqual([200, expect.objectContaining({ path: trojan, version: 1, content: "old\n" })]);
    expect((await h.call("GET", url(ns, "history", trojan), h.tokens.member)).statusCode).toBe(200);
    const moved = await h.one(ns, { ...put("a/team/evil.md", 0, "old\n"), renameFrom: trojan, renameFromVersion: 1 });
    expect(moved).toMatchObject({ status: "applied", path: "a/team/evil.md" });
    expect((await h.call("GET", url(ns, "entry", trojan), h.tokens.member)).json()).toMatchObject({ deleted: true });
  });

  it("keeps an entry stored before the rule deletable, by batch and by compare-and-set", async () => {
    const ns = `inv-legacy-rm-${kind}`;
    await h.storeLegacy(ns, trojan);
    expect(await h.one(ns, { opId: opId("del"), path: trojan, baseVersion: 1, delete: true })).toMatchObject({ status: "applied", deleted: true, version: 2 });
    const ns2 = `inv-legacy-rm2-${kind}`;
    await h.storeLegacy(ns2, trojan);
    const res = await h.call("PUT", url(ns2, "entry", trojan), h.tokens.member, { baseVersion: 1, delete: true });
    expect([res.statusCode, res.json()]).toEqual([200, expect.objectContaining({ path: trojan, version: 2, deleted: true })]);
    // ...but not rewritable under that name.
    const rewrite = await h.call("PUT", url(ns2, "entry", trojan), h.tokens.member, { baseVersion: 2, content: "again\n" });
    expect([rewrite.statusCode, rewrite.json()]).toEqual([400, expect.objectContaining({ code: "invalid_path", details: { rule: "bidi_control" } })]);
  });
});
