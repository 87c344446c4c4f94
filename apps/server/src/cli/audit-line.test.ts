/** `audit list` lines: each kind shows the fields that tell its events apart (try18 F15). */
import type { AuditEvent } from "@teammem/protocol";
import { describe, expect, it } from "vitest";
import { eventLine } from "./audit.js";

const event = (fields: Partial<AuditEvent>): AuditEvent => ({
  id: 7,
  kind: "team_created",
  createdAt: "2026-12-03T06:00:00.000Z",
  actor: "ada",
  namespace: null,
  path: null,
  clientId: null,
  code: null,
  findings: null,
  fingerprintKeyId: null,
  tokenId: null,
  targetUser: null,
  role: null,
  previousRole: null,
  version: null,
  resultVersion: null,
  conflictId: null,
  bypassId: null,
  reason: null,
  reasonText: null,
  note: null,
  policy: null,
  previousPolicy: null,
  count: null,
  remoteAddress: null,
  periodStart: null,
  periodEnd: null,
  epoch: null,
  previousEpoch: null,
  ...fields,
});
const details = (e: AuditEvent) => eventLine(e).split("\t")[4];

describe("audit list line", () => {
  it("shows a rotation's new key id and a policy change's previous and new policy", () => {
    expect(details(event({ kind: "fingerprint_key_rotated", fingerprintKeyId: 2 }))).toBe("key=2");
    expect(details(event({ kind: "bypass_policy_changed", policy: "immediate", previousPolicy: "approval" }))).toBe("policy=approval->immediate");
    // Events recorded before migration 0009 have no previous policy.
    expect(details(event({ kind: "bypass_policy_changed", policy: "approval" }))).toBe("policy=approval");
  });

  it("shows a role change as previous->new, and a request's policy; findings keep their own key out of the line", () => {
    expect(details(event({ kind: "member_role_changed", targetUser: "carol", role: "reader", previousRole: "member" }))).toBe("user=carol role=member->reader");
    const finding = { ruleId: "github-pat", line: 3, fingerprint: "f".repeat(32) };
    expect(details(event({ kind: "bypass_requested", path: "ci.md", reason: "test_value", policy: "approval", fingerprintKeyId: 1, findings: [finding] }))).toBe(
      `path=ci.md policy=approval reason=test_value github-pat@3#${"f".repeat(32)}`,
    );
  });
});
