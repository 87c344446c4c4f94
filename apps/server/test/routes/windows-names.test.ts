/**
 * Entry paths Windows cannot create (try17 L3): a device name (`CON.md`, `aux/x.md`, any case, any
 * extension), a name ending in a space or a dot, or (try18 F11) a name holding one of the characters
 * Windows does not allow in names, `: * ? < > | "`. Refused as a new name by every write route with
 * `invalid_path`; an entry stored under such a name before the rule stays readable, deletable and
 * renamable to a valid name.
 */
import { describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../../src/testing.js";
import { opId, useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("paths Windows cannot create on %s", (kind) => {
  const h = useHarness(kind);
  const url = (ns: string, route: string, path: string) => `/v1/namespaces/${ns}/${route}?path=${encodeURIComponent(path)}`;
  const put = (path: string, baseVersion: number, content: string) => ({ opId: opId("put"), path, baseVersion, content });
  const changes = async (ns: string) => (await h.call("GET", `/v1/namespaces/${ns}/changes`, h.tokens.member)).json().changes as { path: string }[];

  it("refuses a batch put, a compare-and-set write and a rename to such a name with invalid_path, storing nothing", async () => {
    const ns = `win-new-${kind}`;
    const results = await h.batch(ns, [put("CON.md", 0, "hi\n"), put("notes/lpt1.txt", 0, "hi\n"), put("trail.", 0, "hi\n"), put("sp /x.md", 0, "hi\n")]);
    const rejected = (path: string, rule: string) => ({ opId: expect.any(String), path, status: "rejected", code: "invalid_path", message: expect.stringContaining("a teammate on Windows could not write it"), details: { rule } });
    expect(results).toEqual([
      rejected("CON.md", "windows_device_name"),
      rejected("notes/lpt1.txt", "windows_device_name"),
      rejected("trail.", "trailing_dot_or_space"),
      rejected("sp /x.md", "trailing_dot_or_space"),
    ]);
    const res = await h.call("PUT", url(ns, "entry", "nul.tar.gz"), h.tokens.member, { baseVersion: 0, content: "hi\n" });
    expect([res.statusCode, res.json()]).toEqual([400, { code: "invalid_path", message: expect.stringContaining("the device NUL"), details: { rule: "windows_device_name" } }]);
    expect((await h.one(ns, put("ok.md", 0, "ok\n"))).status).toBe("applied");
    const renamed = await h.one(ns, { ...put("ok.md.", 0, "ok\n"), renameFrom: "ok.md", renameFromVersion: 1 });
    expect(renamed).toMatchObject({ status: "rejected", code: "invalid_path", details: { rule: "trailing_dot_or_space" } });
    expect((await changes(ns)).map((c) => c.path)).toEqual(["ok.md"]);
  });

  it("keeps an entry stored before the rule readable, renamable to a valid name and deletable", async () => {
    const ns = `win-legacy-${kind}`;
    await h.storeLegacy(ns, "CON.md");
    const read = await h.call("GET", url(ns, "entry", "CON.md"), h.tokens.member);
    expect([read.statusCode, read.json()]).toEqual([200, expect.objectContaining({ path: "CON.md", version: 1, content: "old\n" })]);
    expect((await h.call("GET", url(ns, "history", "CON.md"), h.tokens.member)).statusCode).toBe(200);
    expect(await h.one(ns, { ...put("CON_.md", 0, "old\n"), renameFrom: "CON.md", renameFromVersion: 1 })).toMatchObject({ status: "applied", path: "CON_.md" });
    const ns2 = `win-legacy-rm-${kind}`;
    await h.storeLegacy(ns2, "trail.");
    expect(await h.one(ns2, { opId: opId("del"), path: "trail.", baseVersion: 1, delete: true })).toMatchObject({ status: "applied", deleted: true, version: 2 });
  });

  const reserved = [":", "*", "?", "<", ">", "|", '"'];

  it.each(reserved)("refuses %j in a new name (batch put, folder name, compare-and-set write, rename) with invalid_path rule windows_reserved_character, storing nothing (try18 F11)", async (ch) => {
    const ns = `win-char-${reserved.indexOf(ch)}-${kind}`;
    const message = `path holds '${ch}', a character Windows does not allow in file names (: * ? < > | "): a teammate on Windows could not write it; rename it`;
    const results = await h.batch(ns, [put(`notes/a${ch}b.md`, 0, "hi\n"), put(`dir${ch}/x.md`, 0, "hi\n")]);
    const rejected = (path: string) => ({ opId: expect.any(String), path, status: "rejected", code: "invalid_path", message, details: { rule: "windows_reserved_character" } });
    expect(results).toEqual([rejected(`notes/a${ch}b.md`), rejected(`dir${ch}/x.md`)]);
    const res = await h.call("PUT", url(ns, "entry", `what${ch}.md`), h.tokens.member, { baseVersion: 0, content: "hi\n" });
    expect([res.statusCode, res.json()]).toEqual([400, { code: "invalid_path", message, details: { rule: "windows_reserved_character" } }]);
    expect((await h.one(ns, put("ok.md", 0, "ok\n"))).status).toBe("applied");
    const renamed = await h.one(ns, { ...put(`ok${ch}.md`, 0, "ok\n"), renameFrom: "ok.md", renameFromVersion: 1 });
    expect(renamed).toMatchObject({ status: "rejected", code: "invalid_path", details: { rule: "windows_reserved_character" } });
    expect((await changes(ns)).map((c) => c.path)).toEqual(["ok.md"]);
  });

  it.each(reserved)("keeps an entry stored under a name holding %j before the rule readable (entry, history, changes), renamable away and deletable, not rewritable (try18 F11)", async (ch) => {
    const i = reserved.indexOf(ch);
    const legacy = `notes/a${ch}b.md`;
    const ns = `win-char-legacy-${i}-${kind}`;
    await h.storeLegacy(ns, legacy);
    const read = await h.call("GET", url(ns, "entry", legacy), h.tokens.member);
    expect([read.statusCode, read.json()]).toEqual([200, expect.objectContaining({ path: legacy, version: 1, content: "old\n" })]);
    const history = await h.call("GET", url(ns, "history", legacy), h.tokens.member);
    expect([history.statusCode, history.json().versions.length]).toEqual([200, 1]);
    expect((await changes(ns)).map((c) => c.path)).toEqual([legacy]);
    const rewrite = await h.call("PUT", url(ns, "entry", legacy), h.tokens.member, { baseVersion: 1, content: "again\n" });
    expect([rewrite.statusCode, rewrite.json()]).toEqual([400, expect.objectContaining({ code: "invalid_path", details: { rule: "windows_reserved_character" } })]);
    expect(await h.one(ns, { ...put("notes/a_b.md", 0, "old\n"), renameFrom: legacy, renameFromVersion: 1 })).toMatchObject({ status: "applied", path: "notes/a_b.md" });
    const ns2 = `win-char-legacy-rm-${i}-${kind}`;
    await h.storeLegacy(ns2, legacy);
    const del = await h.call("PUT", url(ns2, "entry", legacy), h.tokens.member, { baseVersion: 1, delete: true });
    expect([del.statusCode, del.json()]).toEqual([200, expect.objectContaining({ path: legacy, version: 2, deleted: true })]);
  });
});
