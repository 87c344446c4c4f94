/**
 * An audit event commits with the change it records, or neither does (review finding: events
 * written outside their change's transaction). For each change whose event used to be written
 * after the change had committed, on PostgreSQL: a deferred constraint trigger this test creates
 * in its own database refuses the COMMIT of any transaction that wrote `audit_events` (so the
 * event's insert ran) or the change's own table; the request then fails, and neither the change
 * nor an event is left. With the trigger lifted, the same request writes both.
 *
 * A trigger on `audit_events` catches an event written in a transaction of its own after the
 * change committed (the change would stay, unaudited); one on the change's table catches an event
 * committed before or apart from the change (the event would stay, for nothing).
 */
import type { LightMyRequestResponse } from "fastify";
import pg from "pg";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, inject, it, onTestFinished } from "vitest";
import type { AuditEvent, AuditEventKind } from "@teammem/protocol";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { rowsOf } from "../../src/testing.js";
import { createHarness, opId, type Harness } from "../routes/harness.js";
import { cli, cliDatabase } from "../platform/cli-harness.js";
import { failCommitsWriting, type Exec } from "./refuse-commit.js";

/** Every audit event's kind, oldest first (any team, or none): what "no orphan event" is checked against. */
async function auditKinds(h: Harness): Promise<string[]> {
  return (await rowsOf<{ kind: string }>({ db: h.db }, sql`SELECT kind FROM audit_events ORDER BY id`)).map((r) => r.kind);
}

/** The team's events of `kind`, newest first, through the admin API. */
async function eventsOf(h: Harness, kind: AuditEventKind): Promise<AuditEvent[]> {
  const res = await h.call("GET", `/v1/admin/audit-events?kind=${kind}`, h.tokens.admin);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().events as AuditEvent[];
}

const tokenIdOf = (token: string): string => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")).jti;
const codeOf = (res: LightMyRequestResponse): unknown => [res.statusCode, res.json().code];

interface AuditedChange {
  /** The event the change records. */
  kind: AuditEventKind;
  /** The table the change writes (its commit is refused in the second run). */
  table: string;
  /** Anything the change needs before it runs. */
  setUp?(h: Harness): Promise<void>;
  /** Makes the change through its route; @returns what the reply says, in short. */
  act(h: Harness): Promise<unknown>;
  /** The state the change moves, as the product shows it. */
  state(h: Harness): Promise<unknown>;
  /** `act`'s answer, state before and after, and the event, when the change commits. */
  done: unknown;
  before: unknown;
  after: unknown;
  event(h: Harness): Record<string, unknown>;
}

const SECRET_OP = opId("secret");
const secretContent = `deploy notes\nkey=${fakeGithubPat(7)}\n`;

const CHANGES: AuditedChange[] = [
  {
    kind: "member_role_changed",
    table: "memberships",
    act: async (h) => codeOf(await h.call("PUT", "/v1/admin/members/bob", h.tokens.admin, { role: "reader" })),
    state: async (h) => ((await h.call("GET", "/v1/admin/members", h.tokens.admin)).json().members as { user: string; role: string }[]).find((m) => m.user === "bob")?.role,
    done: [200, undefined],
    before: "member",
    after: "reader",
    event: () => ({ actor: "ada", targetUser: "bob", role: "reader", previousRole: "member" }),
  },
  {
    kind: "token_revoked",
    table: "tokens",
    act: async (h) => codeOf(await h.call("DELETE", `/v1/admin/tokens/${tokenIdOf(h.tokens.member2)}`, h.tokens.admin)),
    // Whether bob's token is revoked, as the token list says and as his token's next request finds.
    state: async (h) => [
      ((await h.call("GET", "/v1/admin/tokens", h.tokens.admin)).json().tokens as { tokenId: string; revokedAt: string | null }[]).find(
        (t) => t.tokenId === tokenIdOf(h.tokens.member2),
      )?.revokedAt !== null,
      (await h.call("GET", "/v1/team/whoami", h.tokens.member2)).statusCode,
    ],
    done: [200, undefined],
    before: [false, 200],
    after: [true, 401],
    event: (h) => ({ actor: "ada", tokenId: tokenIdOf(h.tokens.member2), targetUser: "bob", role: "member" }),
  },
  {
    kind: "fingerprint_key_rotated",
    table: "team_fingerprint_keys",
    // The team's key 1 exists before the rotation (made on first use).
    setUp: async (h) => expect((await h.call("GET", "/v1/team/scan-policy", h.tokens.member)).statusCode).toBe(200),
    act: async (h) => {
      const res = await h.call("POST", "/v1/admin/fingerprint-key/rotate", h.tokens.admin);
      return [res.statusCode, res.json().code ?? res.json().fingerprintKeyId];
    },
    // The keys as stored (the scan policy's answer is cached by the instance).
    state: async (h) => (await rowsOf<{ key_id: number }>({ db: h.db }, sql`SELECT key_id FROM team_fingerprint_keys ORDER BY key_id`)).map((r) => r.key_id),
    done: [200, 2],
    before: [1],
    after: [1, 2],
    event: () => ({ actor: "ada", fingerprintKeyId: 2 }),
  },
  {
    // A refusal stored for replay (so a replay neither rescans nor audits again): the stored
    // result is the change, and a result stored without its event would never be audited.
    kind: "upload_rejected",
    table: "operations",
    act: async (h) => {
      const [r] = await h.batch("web", [{ opId: SECRET_OP, path: "deploy.md", baseVersion: 0, content: secretContent }]);
      return [r!.status, r!.status === "rejected" ? r!.code : undefined];
    },
    state: async (h) => (await rowsOf<{ code: string }>({ db: h.db }, sql`SELECT result->>'code' AS code FROM operations WHERE op_id = ${SECRET_OP}`)).map((r) => r.code),
    done: ["rejected", "secret_detected"],
    before: [],
    after: ["secret_detected"],
    event: () => ({ actor: "ann", namespace: "web", path: "deploy.md", code: "secret_detected", fingerprintKeyId: 1 }),
  },
];

describe.each(CHANGES)("$kind commits with its change on postgres", (change) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness("postgres");
    await change.setUp?.(h);
  });
  afterEach(() => h.close());

  it.each(["audit_events", change.table])("a refused commit of a transaction writing %s leaves neither; unrefused, the same request writes both", async (table) => {
    const exec: Exec = (text) => h.db.execute(sql.raw(text));
    expect(await change.state(h)).toEqual(change.before);
    const kindsBefore = await auditKinds(h);
    const lift = await failCommitsWriting(exec, table);

    const refused = await change.act(h);
    expect(refused).toEqual(change.kind === "upload_rejected" ? ["rejected", "internal_error"] : [500, "internal_error"]);
    expect(await change.state(h)).toEqual(change.before);
    expect(await auditKinds(h)).toEqual(kindsBefore);

    await lift();
    expect(await change.act(h)).toEqual(change.done);
    expect(await change.state(h)).toEqual(change.after);
    expect(await auditKinds(h)).toEqual([...kindsBefore, change.kind]);
    expect(await eventsOf(h, change.kind)).toEqual([expect.objectContaining({ kind: change.kind, ...change.event(h) })]);
  });
});

describe("the stored refusal of an upload holding a credential, replayed", () => {
  it("answers the stored result again and records no second event", async () => {
    const h = await createHarness("postgres");
    onTestFinished(() => h.close());
    const op = { opId: opId("replay"), path: "deploy.md", baseVersion: 0, content: secretContent };
    const [first] = await h.batch("web", [op]);
    expect(first).toMatchObject({ status: "rejected", code: "secret_detected" });
    expect(await h.batch("web", [op])).toEqual([first]);
    expect(await auditKinds(h)).toEqual(["upload_rejected"]);
  });
});

describe("the command line's member role and token revoke on postgres commit with their events", () => {
  it.each([
    { kind: "member_role_changed", table: "memberships" },
    { kind: "member_role_changed", table: "audit_events" },
    { kind: "token_revoked", table: "tokens" },
    { kind: "token_revoked", table: "audit_events" },
  ])("$kind: a refused commit of a transaction writing $table leaves neither; unrefused, both", { timeout: 120_000 }, async ({ kind, table }) => {
    const { args, env } = await cliDatabase("postgres", inject("postgresUrl"));
    expect((await cli(["team", "create", "acme", "--admin", "ada", ...args], env)).status).toBe(0);
    const issued = await cli(["token", "create", "--team", "acme", "--user", "ann", "--role", "member", ...args], env);
    const annId = /issued token ([0-9a-f-]{36})/.exec(issued.stderr)![1]!;
    const client = new pg.Client({ connectionString: env["DATABASE_URL"] });
    await client.connect();
    onTestFinished(() => client.end());
    const exec: Exec = (text) => client.query(text);
    const change = kind === "member_role_changed" ? ["member", "role", "ann", "reader", "--team", "acme"] : ["token", "revoke", annId];
    /** Ann's role and whether her token is revoked, as the command line lists them. */
    const state = async () => [
      (await cli(["member", "list", "--team", "acme", ...args], env)).stdout.match(/^ann\t(\w+)\t/m)?.[1],
      (await cli(["token", "list", "--team", "acme", ...args], env)).stdout.match(new RegExp(`^${annId}\\t.*\\t(valid|revoked)`, "m"))?.[1],
    ];
    const kinds = async () => (await client.query<{ kind: string }>("SELECT kind FROM audit_events ORDER BY id")).rows.map((r) => r.kind);
    const before = await state();
    expect(before).toEqual(["member", "valid"]);
    const kindsBefore = await kinds();
    const lift = await failCommitsWriting(exec, table);

    const refused = await cli([...change, ...args], env);
    expect([refused.status, refused.stdout]).toEqual([1, ""]);
    expect(refused.stderr).toContain(`test trigger: commit of a write to ${table} refused`);
    expect(await state()).toEqual(before);
    expect(await kinds()).toEqual(kindsBefore);

    await lift();
    expect(await cli([...change, ...args], env)).toMatchObject({ status: 0, stderr: "" });
    expect(await state()).toEqual(kind === "member_role_changed" ? ["reader", "valid"] : ["member", "revoked"]);
    expect(await kinds()).toEqual([...kindsBefore, kind]);
    const [event] = JSON.parse((await cli(["audit", "list", "--kind", kind, "--json", ...args], env)).stdout).events as AuditEvent[];
    expect(event).toMatchObject({ kind, actor: "cli", targetUser: "ann", ...(kind === "token_revoked" ? { tokenId: annId } : { role: "reader", previousRole: "member" }) });
  });
});
