/**
 * Team-wide fingerprints (issue 10, "Fingerprints an admin can match"): one key per team, issued to
 * every member through GET /v1/team/scan-policy and used by the server's own re-scan, so one value
 * has one fingerprint on every client and the server of a team, and another in any other team.
 */
import { describe, expect, it } from "vitest";
import { sha256Hex } from "@teammem/protocol";
import { scan } from "@teammem/scanner";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { desc } from "drizzle-orm";
import { auditEvents } from "../../src/db/schema.js";
import { DATABASE_KINDS } from "../../src/testing.js";
import { opId, useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("team fingerprint keys on %s", (kind) => {
  const h = useHarness(kind);

  const policy = async (token: string) => {
    const res = await h.call("GET", "/v1/team/scan-policy", token);
    expect(res.statusCode).toBe(200);
    return res.json() as { fingerprintKey: { id: number; key: string } };
  };
  const latestAudit = async () => {
    const row = (await h.db.select().from(auditEvents).orderBy(desc(auditEvents.id)).limit(1))[0]!;
    return { ...row, findings: row.findings as { ruleId: string; fingerprint?: string }[] | null };
  };

  it("gives every role of a team the same key, and another team a different one", async () => {
    const member = await policy(h.tokens.member);
    expect(member).toEqual({ fingerprintKey: { id: 1, key: expect.stringMatching(/^[0-9a-f]{64}$/) }, allowedFingerprints: [] });
    expect(await policy(h.tokens.reader)).toEqual(member);
    expect(await policy(h.tokens.admin)).toEqual(member);
    const other = await policy(h.tokens.otherTeam);
    expect(other.fingerprintKey.key).not.toBe(member.fingerprintKey.key);
  });

  it("refuses the scan policy without a valid token", async () => {
    const res = await h.app.inject({ method: "GET", url: "/v1/team/scan-policy" });
    expect([res.statusCode, res.json().code]).toEqual([401, "unauthorized"]);
  });

  it("fingerprints a secret the server refuses exactly as a client of the team does with the issued key, and differently in another team", async () => {
    const pat = fakeGithubPat(4242);
    const { key } = (await policy(h.tokens.member)).fingerprintKey;
    const clientSide = scan(`token ${pat}\n`, { fingerprintKey: key })[0]!.fingerprint;

    const res = await h.call("POST", "/v1/namespaces/fp1/batch", h.tokens.member, {
      operations: [{ opId: opId("fp"), path: "a.md", baseVersion: 0, content: `token ${pat}\n` }],
    });
    expect(res.json().results[0]).toMatchObject({ status: "rejected", code: "secret_detected" });
    expect((await latestAudit()).findings).toEqual([expect.objectContaining({ ruleId: "github-pat", fingerprint: clientSide })]);

    // A block report of the same value from a client of the team carries the same fingerprint.
    const report = await h.call("POST", "/v1/namespaces/fp1/block-reports", h.tokens.member2, {
      path: "b.md",
      sha256: sha256Hex("x"),
      fingerprintKeyId: 1,
      findings: [{ ruleId: "github-pat", label: "GitHub", line: 3, column: 1, fingerprint: clientSide }],
    });
    expect(report.statusCode).toBe(202);
    expect((await latestAudit()).findings).toEqual([expect.objectContaining({ fingerprint: clientSide })]);

    // The same value refused in another team has an unrelated fingerprint.
    await h.call("POST", "/v1/namespaces/fp1/batch", h.tokens.otherTeam, {
      operations: [{ opId: opId("fp"), path: "a.md", baseVersion: 0, content: `token ${pat}\n` }],
    });
    const theirs = (await latestAudit()).findings![0]!.fingerprint;
    expect(theirs).toMatch(/^[0-9a-f]{32}$/);
    expect(theirs).not.toBe(clientSide);
  });

  it("keeps no fingerprint of a block report that names no key (an older client's per-installation key)", async () => {
    const res = await h.call("POST", "/v1/namespaces/fp2/block-reports", h.tokens.member, {
      path: "c.md",
      sha256: sha256Hex("y"),
      findings: [{ ruleId: "github-pat", label: "GitHub", line: 1, column: 1, fingerprint: "0".repeat(32) }],
    });
    expect(res.statusCode).toBe(202);
    expect((await latestAudit()).findings).toEqual([{ ruleId: "github-pat", label: expect.any(String), line: 1, column: 1 }]);
  });

  it("refuses a block report whose key id is not a positive integer", async () => {
    for (const fingerprintKeyId of [0, -1, 1.5, "1", null]) {
      const res = await h.call("POST", "/v1/namespaces/fp2/block-reports", h.tokens.member, {
        path: "c.md",
        sha256: sha256Hex("y"),
        fingerprintKeyId,
        findings: [{ ruleId: "github-pat", label: "GitHub", line: 1, column: 1 }],
      });
      expect([res.statusCode, res.json().code]).toEqual([400, "invalid_request"]);
    }
  });

  it("rotates the key for admins only: members get 403, the team gets key 2, reports made with key 1 are refused as stale, the other team keeps its key", async () => {
    const before = await policy(h.tokens.member);
    const otherBefore = await policy(h.tokens.otherTeam);
    const denied = await h.call("POST", "/v1/admin/fingerprint-key/rotate", h.tokens.member);
    expect([denied.statusCode, denied.json().code]).toEqual([403, "forbidden"]);

    const rotated = await h.call("POST", "/v1/admin/fingerprint-key/rotate", h.tokens.admin);
    expect([rotated.statusCode, rotated.json()]).toEqual([200, { fingerprintKeyId: before.fingerprintKey.id + 1 }]);
    const after = await policy(h.tokens.member);
    expect(after.fingerprintKey.id).toBe(before.fingerprintKey.id + 1);
    expect(after.fingerprintKey.key).not.toBe(before.fingerprintKey.key);
    expect(await policy(h.tokens.otherTeam)).toEqual(otherBefore);

    const stale = await h.call("POST", "/v1/namespaces/fp3/block-reports", h.tokens.member, {
      path: "d.md",
      sha256: sha256Hex("z"),
      fingerprintKeyId: before.fingerprintKey.id,
      findings: [{ ruleId: "github-pat", label: "GitHub", line: 1, column: 1, fingerprint: "1".repeat(32) }],
    });
    expect([stale.statusCode, stale.json()]).toEqual([
      409,
      { code: "fingerprint_key_stale", message: expect.any(String), details: { currentKeyId: after.fingerprintKey.id } },
    ]);

    // The server's own re-scan uses the new key at once.
    const pat = fakeGithubPat(99);
    await h.call("POST", "/v1/namespaces/fp3/batch", h.tokens.member, {
      operations: [{ opId: opId("fp"), path: "e.md", baseVersion: 0, content: pat }],
    });
    expect((await latestAudit()).findings![0]!.fingerprint).toBe(scan(pat, { fingerprintKey: after.fingerprintKey.key })[0]!.fingerprint);
  });
});
