/**
 * The audit API (issue 11): admin role only (other roles 403, other teams 404), filters, cursor
 * pagination, one event by id, summary counts, and a clear 400 for each kind of bad query.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex, type AuditEvent } from "@teammem/protocol";
import { scan } from "@teammem/scanner";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { issueToken } from "../../src/admin/tokens.js";
import { DATABASE_KINDS } from "../../src/testing.js";
import { createHarness, opId, type Harness } from "../routes/harness.js";

describe.each(DATABASE_KINDS)("audit API on %s", (kind) => {
  let h: Harness;
  let otherAdmin: string;
  let fingerprint: string;
  let events: AuditEvent[];
  const admin = () => h.tokens.admin;
  const get = (url: string, token = admin()) => h.call("GET", `/v1/admin${url}`, token);

  beforeAll(async () => {
    h = await createHarness(kind);
    otherAdmin = (await issueToken(h.db, "test-jwt-secret-".repeat(3), { teamName: "other", userName: "oscar", role: "admin" })).token;
    const pat = fakeGithubPat(31337);
    // ann's upload with a token is refused by the server's re-scan (namespace web)...
    const refused = await h.call("POST", "/v1/namespaces/web/batch", h.tokens.member, {
      clientId: "ann-laptop",
      operations: [{ opId: opId("leak"), path: "team/leak.md", baseVersion: 0, content: `token: ${pat}\n` }],
    });
    expect(refused.json().results[0]).toMatchObject({ status: "rejected", code: "secret_detected" });
    // ...bob's client held the same value back (namespace api), fingerprinted with the team key...
    const { key } = (await h.call("GET", "/v1/team/scan-policy", h.tokens.member2)).json().fingerprintKey;
    fingerprint = scan(pat, { fingerprintKey: key })[0]!.fingerprint;
    const blocked = await h.call("POST", "/v1/namespaces/api/block-reports", h.tokens.member2, {
      clientId: "bob-desktop",
      path: "docs/setup.md",
      sha256: sha256Hex("x"),
      fingerprintKeyId: 1,
      findings: [{ ruleId: "github-pat", label: "GitHub", line: 7, column: 3, fingerprint }],
    });
    expect(blocked.statusCode).toBe(202);
    // ...ada issues a token for zoe, and the other team has an event of its own.
    expect((await h.call("POST", "/v1/admin/tokens", admin(), { user: "zoe", role: "reader" })).statusCode).toBe(201);
    await h.call("POST", "/v1/namespaces/web/batch", h.tokens.otherTeam, {
      operations: [{ opId: opId("theirs"), path: "team/leak.md", baseVersion: 0, content: `token: ${pat}\n` }],
    });
    events = (await get("/audit-events")).json().events;
  });
  afterAll(() => h?.close());

  const ids = (list: AuditEvent[]) => list.map((e) => e.id);
  const list = async (query: string) => {
    const res = await get(`/audit-events?${query}`);
    expect(res.statusCode).toBe(200);
    return res.json().events as AuditEvent[];
  };

  it("lists only the team's events, newest first, typed, with the actor taken from the token", async () => {
    // zoe is new to the team: her token adds her (member_added, try15 F4).
    expect(events.map((e) => [e.kind, e.actor])).toEqual([
      ["token_issued", "ada"],
      ["member_added", "ada"],
      ["client_blocked", "bob"],
      ["upload_rejected", "ann"],
    ]);
    expect(events[2]).toEqual({
      ...Object.fromEntries(Object.keys(events[2]!).map((k) => [k, null])),
      id: expect.any(Number),
      kind: "client_blocked",
      createdAt: expect.any(String),
      actor: "bob",
      namespace: "api",
      path: "docs/setup.md",
      clientId: "bob-desktop",
      code: "secret_detected",
      findings: [{ ruleId: "github-pat", label: expect.any(String), line: 7, column: 3, fingerprint }],
      fingerprintKeyId: 1,
    });
    expect(events[3]).toMatchObject({ namespace: "web", path: "team/leak.md", clientId: "ann-laptop", findings: [{ ruleId: "github-pat", line: 1, fingerprint }] });
    expect(events[0]).toMatchObject({ tokenId: expect.any(String), targetUser: "zoe", role: "reader" });
    expect(events[1]).toMatchObject({ tokenId: null, targetUser: "zoe", role: "reader" });
  });

  it("filters by kind, user (actor or target), namespace, rule, path prefix, fingerprint and time range", async () => {
    const [issued, added, blocked, rejected] = events as [AuditEvent, AuditEvent, AuditEvent, AuditEvent];
    expect(ids(await list("kind=client_blocked"))).toEqual([blocked.id]);
    expect(ids(await list("kind=client_blocked,upload_rejected"))).toEqual([blocked.id, rejected.id]);
    expect(ids(await list("user=ann"))).toEqual([rejected.id]);
    expect(ids(await list("user=zoe"))).toEqual([issued.id, added.id]); // the target of the token and the membership
    expect(ids(await list("namespace=api"))).toEqual([blocked.id]);
    expect(ids(await list("ruleId=github-pat"))).toEqual([blocked.id, rejected.id]);
    expect(ids(await list("ruleId=aws-access-token"))).toEqual([]);
    expect(ids(await list("pathPrefix=team/"))).toEqual([rejected.id]);
    expect(ids(await list(`fingerprint=${fingerprint}`))).toEqual([blocked.id, rejected.id]);
    expect(ids(await list(`fingerprint=${fingerprint}&user=bob`))).toEqual([blocked.id]);
    const at = (e: AuditEvent) => encodeURIComponent(e.createdAt);
    expect(ids(await list(`from=${at(rejected)}`))).toEqual(ids(events));
    expect(ids(await list(`to=${at(rejected)}`))).toEqual([]);
    expect(ids(await list(`from=${encodeURIComponent("2999-01-01T00:00:00Z")}`))).toEqual([]);
  });

  it("pages newest first with a cursor that never repeats or skips an event", async () => {
    const seen: number[] = [];
    let before: number | null = null;
    for (let page = 0; page < 10; page++) {
      const res = await get(`/audit-events?limit=1${before ? `&before=${before}` : ""}`);
      const body = res.json();
      seen.push(...ids(body.events));
      before = body.nextBefore;
      if (before === null) break;
    }
    // A full last page still names a cursor; the page after it is empty and ends the walk.
    expect(seen).toEqual(ids(events));
    expect(before).toBeNull();
  });

  it("shows one event by id, and answers another team's or a missing id as not found", async () => {
    const res = await get(`/audit-events/${events[1]!.id}`);
    expect([res.statusCode, res.json()]).toEqual([200, events[1]]);
    const theirs = (await get("/audit-events", otherAdmin)).json().events[0] as AuditEvent;
    for (const id of [theirs.id, 999_999_999]) {
      const other = await get(`/audit-events/${id}`);
      expect([other.statusCode, other.json()]).toEqual([404, { code: "not_found", message: "no such audit event in this team" }]);
    }
  });

  it("summarises by kind, rule, user, namespace and day, with the same filters", async () => {
    const res = await get("/audit-events/summary");
    expect(res.statusCode).toBe(200);
    const day = events[0]!.createdAt.slice(0, 10);
    expect(res.json()).toEqual({
      total: 4,
      byKind: [
        { key: "client_blocked", count: 1 },
        { key: "member_added", count: 1 },
        { key: "token_issued", count: 1 },
        { key: "upload_rejected", count: 1 },
      ],
      byRule: [{ key: "github-pat", count: 2 }],
      byUser: [
        { key: "ada", count: 2 },
        { key: "ann", count: 1 },
        { key: "bob", count: 1 },
      ],
      byNamespace: [
        { key: "api", count: 1 },
        { key: "web", count: 1 },
      ],
      byDay: [{ day, count: 4 }],
    });
    const filtered = (await get("/audit-events/summary?namespace=web")).json();
    expect([filtered.total, filtered.byUser]).toEqual([1, [{ key: "ann", count: 1 }]]);
  });

  it("refuses every audit route to member and reader tokens (403) and shows another team only its own events", async () => {
    for (const url of ["/audit-events", `/audit-events/${events[0]!.id}`, "/audit-events/summary", "/audit-events/export?format=csv"]) {
      for (const token of [h.tokens.member, h.tokens.reader]) {
        const res = await get(url, token);
        expect([url, res.statusCode, res.json().code]).toEqual([url, 403, "forbidden"]);
      }
    }
    const theirs = (await get("/audit-events", otherAdmin)).json().events as AuditEvent[];
    expect(theirs.map((e) => [e.kind, e.actor])).toEqual([["upload_rejected", "olga"]]);
    expect((await get("/audit-events/summary", otherAdmin)).json().total).toBe(1);
  });

  it.each(["/audit-events", "/audit-events/summary", "/audit-events/export"])(
    "answers %s with `to` before `from` with 400 invalid_request naming `to` and `from`, never their values, not an empty 200",
    async (route) => {
      const res = await get(`${route}?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`);
      expect([res.statusCode, res.json()]).toEqual([400, { code: "invalid_request", message: "invalid request: querystring/to: must not be before from" }]);
    },
  );

  it("compares from and to as instants, and takes from equal to to as an empty range", async () => {
    // 01:00+02:00 is 23:00Z the day before: after `from` as an instant, though it sorts before it as text.
    const offsets = await get("/audit-events/summary?from=2026-01-01T22:00:00Z&to=2026-01-02T01:00:00%2B02:00");
    expect([offsets.statusCode, offsets.json().total]).toEqual([200, 0]);
    const reversed = await get("/audit-events/summary?from=2026-01-02T00:30:00%2B02:00&to=2026-01-01T22:00:00Z");
    expect([reversed.statusCode, reversed.json().code]).toEqual([400, "invalid_request"]);
    const empty = await get("/audit-events?from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z");
    expect([empty.statusCode, empty.json().events]).toEqual([200, []]);
  });

  it.each([
    ["an unknown parameter", "/audit-events?colour=red"],
    ["an unknown kind", "/audit-events?kind=coffee_spilled"],
    ["an empty kind list", "/audit-events?kind=,"],
    ["a time that is not ISO 8601", "/audit-events?from=yesterday"],
    ["a time without an offset", "/audit-events?to=2024-01-01T00:00:00"],
    ["a limit of 0", "/audit-events?limit=0"],
    ["a limit above 500", "/audit-events?limit=501"],
    ["a limit that is not a number", "/audit-events?limit=ten"],
    ["a cursor of 0", "/audit-events?before=0"],
    ["a cursor that is not a number", "/audit-events?before=abc"],
    ["a fingerprint that is not 32 hex digits", "/audit-events?fingerprint=XYZ"],
    ["a rule id that is not kebab-case", "/audit-events?ruleId=GitHub_PAT"],
    ["an invalid namespace", "/audit-events?namespace=..%2Fetc"],
    ["an invalid user name", "/audit-events?user=-root"],
    ["a path prefix over 1024 characters", `/audit-events?pathPrefix=${"a".repeat(1025)}`],
    ["an event id that is not a number", "/audit-events/abc"],
    ["an event id of 0", "/audit-events/0"],
    ["an event id beyond 2^53", "/audit-events/99999999999999999999"],
    ["a summary with an unknown parameter", "/audit-events/summary?limit=5"],
    ["an export format other than csv or jsonl", "/audit-events/export?format=xlsx"],
  ])("answers %s with 400 invalid_request naming the field", async (_name, url) => {
    const res = await get(url);
    expect([res.statusCode, res.json().code]).toEqual([400, "invalid_request"]);
    expect(res.json().message).toMatch(/^invalid request: /);
  });
});
