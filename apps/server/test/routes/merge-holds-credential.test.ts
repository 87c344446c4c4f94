/**
 * try14 F22: two clean edits whose three-way merge holds a credential (one teammate adds a Twilio
 * API key SID, another its secret two lines below; each upload alone passes the scan). The merge
 * is re-scanned and not stored; the result is a conflict that says why (`code:
 * merge_holds_credential`, findings without the value), audited as such, the edit kept.
 */
import { describe, expect, it } from "vitest";
import { sha256Hex, type OperationResult } from "@teammem/protocol";
import { randomChars } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "../../src/testing.js";
import { auditEvents } from "../../src/db/schema.js";
import { useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("a merge that would hold a credential on %s", (kind) => {
  const h = useHarness(kind);
  // Built at run time: SK + 32 hex (the key's id), and a 32-character secret with letters and digits.
  const sid = `SK${randomChars(32, 2201, "0123456789abcdef")}`;
  const secret = randomChars(32, 2202);
  const base = "# Twilio\n\nkey id:\n\nkept apart\n\nsecret:\n";
  const bobs = base.replace("key id:", `TWILIO_API_KEY=${sid}`);
  const anns = base.replace("secret:", `TWILIO_API_SECRET=${secret}`);

  it("answers conflict with code merge_holds_credential and findings, stores no merge, keeps the edit as the conflict record and audits it (try14 F22)", async () => {
    const ns = `f22-${kind}`;
    const put = (id: string, baseVersion: number, content: string, path = "team/twilio.md") => ({ opId: id, path, baseVersion, content });
    expect(await h.one(ns, put("f22-base-0001", 0, base))).toMatchObject({ status: "applied", version: 1 });
    expect(await h.one(ns, put("f22-bob-00001", 1, bobs), h.tokens.member2)).toMatchObject({ status: "applied", version: 2 });
    // Alone, Ann's edit is clean: it is accepted on a path of its own.
    expect(await h.one(ns, put("f22-alone-001", 0, anns, "team/alone.md"))).toMatchObject({ status: "applied" });

    const res = await h.one(ns, put("f22-ann-00001", 1, anns));
    expect(res).toEqual({
      opId: "f22-ann-00001",
      path: "team/twilio.md",
      status: "conflict",
      conflictId: expect.any(String),
      headVersion: 2,
      headSha256: sha256Hex(bobs),
      headContent: bobs,
      cursor: 4,
      headAuthor: "bob",
      code: "merge_holds_credential",
      findings: [{ ruleId: "twilio-api-key", label: expect.any(String), line: 7, column: 19 }],
    });
    expect(JSON.stringify(res)).not.toContain(secret);
    // The same operation again: the stored result, nothing recorded twice.
    expect(await h.one(ns, put("f22-ann-00001", 1, anns))).toEqual(res);

    // The head stays Bob's; Ann's edit is the open conflict record, whole.
    const entry = (await h.call("GET", `/v1/namespaces/${ns}/entry?path=team/twilio.md`, h.tokens.member)).json();
    expect([entry.version, entry.content]).toEqual([2, bobs]);
    const conflicts = (await h.call("GET", `/v1/namespaces/${ns}/conflicts`, h.tokens.member)).json();
    expect(JSON.stringify(conflicts)).toContain((res as Extract<OperationResult, { status: "conflict" }>).conflictId);

    const events = (await h.db.select().from(auditEvents)).filter((e) => e.namespace === ns);
    expect(events.map((e) => e.kind).sort()).toEqual(["conflict_recorded", "merge_holds_credential"]);
    expect(events.find((e) => e.kind === "merge_holds_credential")).toMatchObject({
      path: "team/twilio.md",
      conflictId: (res as { conflictId: string }).conflictId,
      version: 2,
      code: "merge_holds_credential",
      findings: [{ ruleId: "twilio-api-key", line: 7, column: 19, fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/) }],
    });
    expect(JSON.stringify(events)).not.toContain(secret);
    // The admin API lists the event by its kind.
    const listed = (await h.call("GET", "/v1/admin/audit-events?kind=merge_holds_credential", h.tokens.admin)).json();
    expect(listed.events.map((e: { kind: string; path: string }) => [e.kind, e.path])).toEqual([["merge_holds_credential", "team/twilio.md"]]);
  });

  it("keeps code absent for edits that changed the same lines", async () => {
    const ns = `f22-overlap-${kind}`;
    await h.one(ns, { opId: "f22-o-base-01", path: "a.md", baseVersion: 0, content: "one\n" });
    await h.one(ns, { opId: "f22-o-bob-001", path: "a.md", baseVersion: 1, content: "bob\n" }, h.tokens.member2);
    const res = await h.one(ns, { opId: "f22-o-ann-001", path: "a.md", baseVersion: 1, content: "ann\n" });
    expect(res.status).toBe("conflict");
    expect("code" in res || "findings" in res).toBe(false);
  });
});
