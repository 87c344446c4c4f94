/**
 * Back up and move (issue 12): `teammem-server export` / `import` carry every table between the
 * embedded database and PostgreSQL unchanged (compared row by row, ids, timestamps and the audit log
 * included), tokens keep working (revoked ones stay revoked), the import starts a new epoch under
 * the same server id, and new writes continue after the imported ids. Bad input is refused naming
 * the line with a stable code, and leaves the target database empty; an export streams (one
 * cursor batch at a time, waiting for its reader).
 */
import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { Readable } from "node:stream";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, inject, it, onTestFinished } from "vitest";
import { scan } from "@teammem/scanner";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { sha256Hex } from "@teammem/protocol";
import { backupTables } from "../../src/backup/backup-format.js";
import { exportBackup } from "../../src/backup/export-backup.js";
import { run } from "../../src/cli/run.js";
import { openDatabase, type Database } from "../../src/db/database.js";
import { createPostgresDatabase, rowsOf } from "../../src/testing.js";
import { cli, cliDatabase, firstAdminToken, startCli, tempDir, type CliDatabase } from "./cli-harness.js";

const postgresUrl = () => inject("postgresUrl");

/** Opens the database `where` names, migrated, closed after the test (no server may hold it meanwhile). */
async function open(where: CliDatabase): Promise<Database> {
  const database = where.env["DATABASE_URL"]
    ? await openDatabase({ kind: "postgres", url: where.env["DATABASE_URL"] })
    : await openDatabase({ kind: "pglite", dataDir: where.args[1]! });
  await database.migrate();
  return database;
}

/** Every row of every table of the public schema, as sorted JSON texts per table (UTC); the epoch settings aside. */
async function tableDump(where: CliDatabase): Promise<Record<string, string[]>> {
  const database = await open(where);
  try {
    return await database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL TIME ZONE 'UTC'`);
      const tables = ((await tx.execute(
        sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
      )) as unknown as { rows: { name: string }[] }).rows;
      const dump: Record<string, string[]> = {};
      for (const { name } of tables) {
        const filter = name === "server_settings" ? `WHERE key NOT IN ('epoch', 'epoch_origin')` : "";
        const rows = ((await tx.execute(sql.raw(`SELECT to_jsonb(t)::text AS r FROM "${name}" t ${filter}`))) as unknown as { rows: { r: string }[] }).rows;
        dump[name] = rows.map((r) => r.r).sort();
      }
      return dump;
    });
  } finally {
    await database.close();
  }
}

/** A server on `where` with one of everything: members, a revoked token, versions, a tombstone, a rename, a conflict, a purge, a bypass, a rotated key, audit events. */
async function populate(where: CliDatabase): Promise<{ admin: string; alice: string; bobRevoked: string }> {
  const server = await startCli(where.args, where.env);
  const admin = firstAdminToken(server.stdout())!;
  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json().catch(() => null)) as Record<string, unknown> };
  };
  const alice = (await call(admin, "POST", "/v1/admin/tokens", { user: "alice", role: "member" })).json["token"] as string;
  const bob = (await call(admin, "POST", "/v1/admin/tokens", { user: "bob", role: "reader" })).json;
  expect((await call(admin, "DELETE", `/v1/admin/tokens/${bob["tokenId"] as string}`)).status).toBe(200);
  const batch = async (operations: unknown[]) => {
    const res = await call(alice, "POST", "/v1/namespaces/acme-web/batch", { clientId: "alice-laptop", operations });
    expect(res.status).toBe(200);
    return (res.json["results"] as { status: string }[]).map((r) => r.status);
  };
  const op = (() => {
    let n = 0;
    return () => `backup-op-${++n}-${Date.now()}`;
  })();
  expect(
    await batch([
      { opId: op(), path: "a.md", baseVersion: 0, content: "line one\n" },
      { opId: op(), path: "b.md", baseVersion: 0, content: "bee\n" },
      { opId: op(), path: "c.md", baseVersion: 0, content: "sea\n" },
      { opId: op(), path: "leak.md", baseVersion: 0, content: "oops\n" },
    ]),
  ).toEqual(["applied", "applied", "applied", "applied"]);
  expect(
    await batch([
      { opId: op(), path: "b.md", baseVersion: 1, delete: true },
      { opId: op(), path: "d.md", baseVersion: 0, content: "sea\n", renameFrom: "c.md", renameFromVersion: 1 },
      { opId: op(), path: "a.md", baseVersion: 1, content: "line one, alice\n" },
    ]),
  ).toEqual(["applied", "applied", "applied"]);
  expect(await batch([{ opId: op(), path: "a.md", baseVersion: 1, content: "line one, again\n" }])).toEqual(["conflict"]);
  // A secret refused (audit: upload_rejected), then let through by an approved bypass.
  const secret = fakeGithubPat(7);
  const content = `key=${secret}\n`;
  expect(await batch([{ opId: op(), path: "keys.md", baseVersion: 0, content }])).toEqual(["rejected"]);
  const policy = (await call(alice, "GET", "/v1/team/scan-policy")).json as { fingerprintKey: { id: number; key: string } };
  const [finding] = scan(content, { fingerprintKey: policy.fingerprintKey.key });
  const asked = await call(alice, "POST", "/v1/team/bypasses", {
    namespace: "acme-web",
    path: "keys.md",
    ruleId: finding!.ruleId,
    line: finding!.line,
    fingerprint: finding!.fingerprint,
    fingerprintKeyId: policy.fingerprintKey.id,
    reason: "test_value",
    reasonText: "a sandbox token",
    clientId: "alice-laptop",
  });
  expect(asked.status).toBe(201);
  const bypassId = (asked.json["bypass"] as { id: string }).id;
  expect((await call(admin, "POST", `/v1/admin/bypasses/${bypassId}/approve`, { note: "fine" }))).toMatchObject({ status: 200 });
  expect((await call(admin, "POST", `/v1/admin/bypasses/${bypassId}/revoke`, { note: "sandbox closed" }))).toMatchObject({ status: 200 });
  expect((await call(admin, "POST", "/v1/admin/namespaces/acme-web/purge", { path: "leak.md", version: 1, reason: "pasted by mistake" }))).toMatchObject({ status: 200 });
  expect((await call(admin, "POST", "/v1/admin/fingerprint-key/rotate"))).toMatchObject({ status: 200 });
  expect((await call(admin, "PUT", "/v1/admin/policy", { bypassPolicy: "immediate" }))).toMatchObject({ status: 200 });
  expect(await server.stop()).toBe(0);
  return { admin, alice, bobRevoked: bob["token"] as string };
}

const lines = (text: string) => text.split("\n").filter((l) => l !== "");

/** The `backup_imported` audit rows of a dump (an import records one per team), and the dump without them. */
function splitImports(dump: Record<string, string[]>): { imports: Record<string, unknown>[]; rest: Record<string, string[]> } {
  const isImport = (r: string) => (JSON.parse(r) as { kind: string }).kind === "backup_imported";
  return {
    imports: dump["audit_events"]!.filter(isImport).map((r) => JSON.parse(r) as Record<string, unknown>),
    rest: { ...dump, audit_events: dump["audit_events"]!.filter((r) => !isImport(r)) },
  };
}

describe("teammem-server export and import", () => {
  it("moves PGlite → PostgreSQL → PGlite with every table equal, the audit log kept, tokens valid, a new epoch under the same server id", async () => {
    const source = await cliDatabase("pglite", postgresUrl(), { seeded: true });
    const tokens = await populate(source);
    const before = await tableDump(source);
    // Every table the database has is in the backup, and the population filled every one of them.
    expect(Object.keys(before).sort()).toEqual(backupTables.map((t) => t.name).sort());
    for (const [table, rows] of Object.entries(before)) expect(rows.length, `rows of ${table}`).toBeGreaterThan(0);
    // The revoke's note and the first start's team, member and token events are among them.
    expect(before["bypasses"]!.map((r) => (JSON.parse(r) as { revoke_note: string | null }).revoke_note)).toEqual(["sandbox closed"]);
    const kinds = before["audit_events"]!.map((r) => JSON.parse(r) as { kind: string; actor_name: string; target_user: string | null });
    expect(kinds.filter((e) => e.actor_name === "server").map((e) => [e.kind, e.target_user]).sort()).toEqual([
      ["member_added", "admin"],
      ["team_created", null],
      ["token_issued", "admin"],
    ]);

    const exported = await cli(["export", ...source.args], source.env);
    expect(exported.status, exported.stderr).toBe(0);
    const backupLines = lines(exported.stdout);
    const header = JSON.parse(backupLines[0]!) as { server: { id: string; epoch: string } };
    expect(header).toMatchObject({ format: "teammem-backup", formatVersion: 1, server: { id: expect.any(String), epoch: expect.any(String) } });
    expect(JSON.parse(backupLines.at(-1)!)).toEqual({ end: { rows: expect.objectContaining({ versions: before["versions"]!.length }) } });
    expect(exported.stdout).not.toContain('"epoch_origin"');
    const file = join(await tempDir(), "backup.jsonl");
    await writeFile(file, exported.stdout, { mode: 0o600 }); // as export writes a backup file

    const postgres = await cliDatabase("postgres", postgresUrl());
    const imported = await cli(["import", file], postgres.env);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/imported \d+ rows .* into PostgreSQL/);
    expect(imported.stderr).toContain("new epoch");
    // Every table as before, plus the import's own audit event (try15 F4): the team's one, by `cli`,
    // with the new epoch, the backup's and the rows imported.
    const movedDump = splitImports(await tableDump(postgres));
    expect(movedDump.rest).toEqual(before);
    const rowsImported = Object.values((JSON.parse(backupLines.at(-1)!) as { end: { rows: Record<string, number> } }).end.rows).reduce((a, b) => a + b, 0);
    expect(movedDump.imports).toEqual([
      expect.objectContaining({ actor_name: "cli", previous_epoch: header.server.epoch, epoch: expect.any(String), count: rowsImported, reason_text: expect.stringContaining(`import of ${file}`) }),
    ]);
    // The audit log reads as before: every event, the refused upload and the bypass among them, then the import.
    const audit = await cli(["audit", "list", "--limit", "500", ...postgres.args], postgres.env);
    expect(lines(audit.stdout).length).toBe(before["audit_events"]!.length + 1);
    expect(audit.stdout).toMatch(/\tupload_rejected\t/);
    expect(audit.stdout).toMatch(/\tbypass_approved\t/);
    expect(lines(audit.stdout)[0]).toMatch(/\tbackup_imported\tcli\t/);

    // And back to a new embedded folder.
    const again = await cli(["export", ...postgres.args], postgres.env);
    expect(again.status, again.stderr).toBe(0);
    const file2 = join(await tempDir(), "backup2.jsonl");
    await writeFile(file2, again.stdout, { mode: 0o600 });
    const back = await cliDatabase("pglite", postgresUrl(), { seeded: true });
    expect((await cli(["import", file2, ...back.args], back.env)).status).toBe(0);
    // The first import's event moved with the rest (its epoch columns included); the second added its own.
    const movedBack = splitImports(await tableDump(back));
    expect(movedBack.rest).toEqual(before);
    const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => Number(a["id"]) - Number(b["id"]);
    expect(movedBack.imports.sort(byId)).toEqual([
      movedDump.imports[0],
      expect.objectContaining({ previous_epoch: movedDump.imports[0]!["epoch"], reason_text: expect.stringContaining(`import of ${file2}`) }),
    ]);

    // Same server id, a new epoch that says why.
    const idOf = (text: string) => /server (\S+) epoch (\S+)/.exec(text)!.slice(1);
    const { id: sourceId, epoch: sourceEpochId } = header.server;
    const moved = (await cli(["epoch", "show", ...postgres.args], postgres.env)).stdout;
    expect(idOf(moved)[0]).toBe(sourceId);
    expect(idOf(moved)[1]).not.toBe(sourceEpochId);
    expect(moved).toContain(`import of ${file}`);

    // The moved server: tokens valid (the JWT key moved with the data), the revoked one refused, new writes after the imported ids.
    const server = await startCli(postgres.args, postgres.env);
    const get = (token: string, path: string) => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await get(tokens.admin, "/v1/admin/members")).status).toBe(200);
    const refused = await get(tokens.bobRevoked, "/v1/namespaces");
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([401, "token_revoked"]);
    const info = (await (await get(tokens.alice, "/v1/server")).json()) as { server: { id: string; epoch: string } };
    expect(info.server).toEqual({ id: sourceId, epoch: idOf(moved)[1] });
    const write = await fetch(`${server.url}/v1/namespaces/acme-web/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.alice}`, "content-type": "application/json" },
      body: JSON.stringify({ operations: [{ opId: `after-move-${Date.now()}`, path: "new.md", baseVersion: 0, content: "after the move\n" }] }),
    });
    expect(((await write.json()) as { results: { status: string }[] }).results.map((r) => r.status)).toEqual(["applied"]);
    expect(await server.stop()).toBe(0);
    // Each open of an embedded folder (6 here) takes seconds, tens of seconds on a loaded machine.
  }, 600_000);

  describe("bad input: refused naming the line and a stable code, the target left empty", () => {
    /** A small valid backup (a team, a user, a token) as lines, made once. */
    let good: string[] = [];
    beforeAll(async () => {
      const source = await createPostgresDatabase(postgresUrl());
      try {
        const env = { DATABASE_URL: source.url };
        expect((await cli(["team", "create", "acme", "--admin", "ada"], env)).status).toBe(0);
        const exported = await cli(["export"], env);
        expect(exported.status).toBe(0);
        good = lines(exported.stdout);
      } finally {
        await source.drop();
      }
    });
    const importText = async (text: string, target: CliDatabase) => {
      const file = join(await tempDir(), "bad.jsonl");
      await writeFile(file, text, { mode: 0o600 });
      return cli(["import", file, ...target.args], target.env);
    };
    const occupied = async (target: CliDatabase) => {
      const dump = await tableDump(target);
      return Object.entries(dump)
        .filter(([t, rows]) => t !== "server_settings" && rows.length > 0)
        .map(([t]) => t);
    };
    const join_ = (l: string[]) => l.join("\n") + "\n";
    const cases = (): [string, string, RegExp][] => {
      const teamLine = good.findIndex((l) => l.startsWith('{"table":"teams"'));
      const auditLine = good.findIndex((l) => l.startsWith('{"table":"audit_events"'));
      // A tombstone at version -1 (every column present and well typed: only its value is impossible).
      const negativeVersion = {
        id: 1, namespace_id: randomUUID(), path: "a.md", version: -1, kind: "delete", deleted: true, content: null, sha256: null, size_bytes: 0,
        parent_version: null, base_version: null, author_id: null, author_name: "ann", client_id: null, op_id: null, cursor: 1,
        created_at: "2026-01-01T00:00:00.000000+00:00", purged_by: null, purged_at: null, purge_reason: null,
      };
      return [
        ["truncated (the end line missing)", join_(good.slice(0, -1)), /no end line after line \d+: the file was cut short.*\(backup_truncated\)/],
        ["cut mid-line", good.join("\n").slice(0, -25), /line \d+: the last line is cut short.*\(backup_truncated\)/],
        ["a line missing (the end line's counts differ)", join_([...good.slice(0, 2), ...good.slice(3)]), /line \d+: the end line's counts differ.*\(backup_truncated\)/],
        ["not JSON on line 3", join_([...good.slice(0, 2), "{not json", ...good.slice(3)]), /line 3: not JSON \(backup_invalid_line\)/],
        [
          "a mistyped column on line 3",
          join_([...good.slice(0, 2), good[2]!.replace(/"created_at":"[^"]*"/, '"created_at":42'), ...good.slice(3)]),
          /line 3: invalid \S+ row: created_at: Invalid input: expected string, received number \(backup_invalid_line\)/,
        ],
        [
          "a negative version",
          join_([...good.slice(0, auditLine), JSON.stringify({ table: "versions", row: negativeVersion }), ...good.slice(auditLine)]),
          new RegExp(`line ${auditLine + 1}: invalid versions row: version: .*>=1 \\(backup_invalid_line\\)`),
        ],
        [
          "a version over the server's TEAMMEM_MAX_ENTRY_BYTES (content, sha256 and size consistent)",
          join_([
            ...good.slice(0, auditLine),
            JSON.stringify({
              table: "versions",
              row: { ...negativeVersion, version: 1, kind: "edit", deleted: false, content: "x".repeat(300_000), sha256: sha256Hex("x".repeat(300_000)), size_bytes: 300_000 },
            }),
            ...good.slice(auditLine),
          ]),
          /line \d+: a version of 300000 bytes, over this server's entry limit of 262144 bytes \(TEAMMEM_MAX_ENTRY_BYTES\).*\(backup_invalid_line\)/,
        ],
        [
          "an extra __proto__ column (would set a prototype, not fail the column check)",
          join_(good.map((l) => (l.startsWith('{"table":"principals"') ? l.replace('"row":{', '"row":{"__proto__":{"x":1},') : l))),
          /line \d+: a forbidden key __proto__ \(backup_invalid_line\)/,
        ],
        [
          "a weak jwt_secret (shorter than the JWT_SECRET rule)",
          join_(good.map((l) => (l.startsWith('{"table":"server_settings"') && l.includes('"key":"jwt_secret"') ? l.replace(/"value":"[^"]*"/, '"value":"short"') : l))),
          /line \d+: invalid server_settings row: value: jwt_secret must be at least 32 characters.*\(backup_invalid_line\)/,
        ],
        ["an unknown table", join_([...good.slice(0, -1), '{"table":"secrets","row":{}}', good.at(-1)!]), new RegExp(`line ${good.length}: unknown table "secrets" \\(backup_invalid_line\\)`)],
        [
          "a duplicate row (refused by the database)",
          join_([...good.slice(0, teamLine + 1), good[teamLine]!, ...good.slice(teamLine + 1)]),
          new RegExp(`line ${teamLine + 2}: a teams row with the same key as an earlier line \\(constraint teams_pkey\\): every row may appear once in a backup.*\\(backup_duplicate_row\\)`),
        ],
        [
          "wrong format version",
          join_([good[0]!.replace('"formatVersion":1', '"formatVersion":2'), ...good.slice(1)]),
          /line 1: backup format version 2; this server reads version 1.*\(backup_format_version\)/,
        ],
        ["not a backup", "name,value\nx,1\n", /line 1: not a teammem backup.*\(backup_not_a_backup\)/],
        ["an empty file", "", /the file is empty.*\(backup_not_a_backup\)/],
      ];
    };

    // Every case on PostgreSQL; on the embedded database (slow to open) the kinds that reach its transaction.
    it.each([
      ["postgres", null],
      ["pglite", ["truncated (the end line missing)", "a duplicate row (refused by the database)"]],
    ] as const)("on %s", async (kind, only) => {
      const target = await cliDatabase(kind, postgresUrl(), { seeded: true });
      for (const [what, text, message] of cases().filter(([what]) => !only || (only as readonly string[]).includes(what))) {
        const result = await importText(text, target);
        expect([what, result.status, result.stderr]).toEqual([what, 1, expect.stringMatching(message)]);
        expect(result.stderr.split("nothing was imported")).toHaveLength(2); // said once (try20 F8: twice)
      }
      // Nothing of a refused import stayed (else the next import would also have been refused as not empty).
      expect(await occupied(target)).toEqual([]);

      // A good import, then any import into the now non-empty database is refused, data intact.
      expect((await importText(join_(good), target)).status).toBe(0);
      const loaded = await tableDump(target);
      const refused = await importText(join_(good), target);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/the database already holds data \(teams, principals, .*\).*\(backup_target_not_empty\)/);
      expect(refused.stderr.split("nothing was imported")).toHaveLength(2);
      expect(await tableDump(target)).toEqual(loaded);
      const missing = await cli(["import", join(await tempDir(), "nope.jsonl"), ...target.args], target.env);
      expect([missing.status, missing.stderr]).toEqual([1, expect.stringMatching(/cannot read .*nope\.jsonl: no such file \(ENOENT\) \(backup_unreadable\)/)]);
    }, 400_000);
  });

  it("imports from stdin with - (read in pieces that cut lines anywhere): a PostgreSQL → PostgreSQL copy is equal", async () => {
    const source = await cliDatabase("postgres", postgresUrl());
    expect((await cli(["team", "create", "acme", "--admin", "ada"], source.env)).status).toBe(0);
    const exported = await cli(["export"], source.env);
    const target = await cliDatabase("postgres", postgresUrl());
    let stderr = "";
    const status = await run(["import", "-"], { LOG_LEVEL: "silent", ...target.env }, {
      stdout: () => undefined,
      stderr: (t) => void (stderr += t),
      // In 7-byte pieces that cut lines anywhere.
      stdin: () => {
        const bytes = Buffer.from(exported.stdout);
        return Readable.from(Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7)));
      },
    });
    expect(status, stderr).toBe(0);
    expect(stderr).toMatch(/imported \d+ rows/);
    expect(splitImports(await tableDump(target)).rest).toEqual(await tableDump(source));
    const noStdin = await cli(["import", "-"], target.env);
    expect([noStdin.status, noStdin.stderr]).toEqual([2, expect.stringContaining("no standard input to read here")]);
  });

  it("refuses a backup whose namespace holds more live entries than this server's TEAMMEM_MAX_ENTRIES_PER_NAMESPACE, the target left empty (issue 12)", async () => {
    const source = await cliDatabase("postgres", postgresUrl());
    const server = await startCli([], source.env);
    const admin = firstAdminToken(server.stdout())!;
    const post = async (token: string, path: string, body: unknown) =>
      (await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.json())) as Record<string, unknown>;
    const alice = (await post(admin, "/v1/admin/tokens", { user: "alice", role: "member" }))["token"] as string;
    const batch = async (operations: unknown[]) =>
      ((await post(alice, "/v1/namespaces/acme-web/batch", { operations }))["results"] as { status: string }[]).map((r) => r.status);
    const op = (n: number) => `limit-op-${n}-${Date.now()}`;
    expect(await batch(["a.md", "b.md", "c.md", "d.md"].map((path, i) => ({ opId: op(i), path, baseVersion: 0, content: `${path}\n` })))).toEqual(["applied", "applied", "applied", "applied"]);
    // A tombstone is no live entry: the namespace holds 3.
    expect(await batch([{ opId: op(9), path: "d.md", baseVersion: 1, delete: true }])).toEqual(["applied"]);
    expect(await server.stop()).toBe(0);
    const exported = await cli(["export"], source.env);
    expect(exported.status).toBe(0);
    const file = join(await tempDir(), "backup.jsonl");
    await writeFile(file, exported.stdout, { mode: 0o600 }); // as export writes a backup file
    const namespaceLine = exported.stdout.split("\n").findIndex((l) => l.startsWith('{"table":"namespaces"')) + 1;

    const target = await cliDatabase("postgres", postgresUrl());
    const refused = await cli(["import", file], { ...target.env, TEAMMEM_MAX_ENTRIES_PER_NAMESPACE: "2" });
    expect([refused.status, refused.stderr]).toEqual([
      1,
      `teammem-server: import refused, nothing was imported: line ${namespaceLine}: namespace "acme-web" holds 3 live entries, over this server's limit of 2 entries per namespace (TEAMMEM_MAX_ENTRIES_PER_NAMESPACE): set it at least that high for the import and for the server (backup_invalid_line)\n`,
    ]);
    const database = await openDatabase({ kind: "postgres", url: target.env["DATABASE_URL"]! });
    try {
      const counts = await rowsOf<{ teams: number; namespaces: number; entries: number }>(
        database,
        sql`SELECT (SELECT count(*)::int FROM teams) AS teams, (SELECT count(*)::int FROM namespaces) AS namespaces, (SELECT count(*)::int FROM entries) AS entries`,
      );
      expect(counts).toEqual([{ teams: 0, namespaces: 0, entries: 0 }]);
    } finally {
      await database.close();
    }
    // At the limit exactly (the server itself lets a namespace hold that many), it is imported.
    const atLimit = await cli(["import", file], { ...target.env, TEAMMEM_MAX_ENTRIES_PER_NAMESPACE: "3" });
    expect([atLimit.status, atLimit.stderr]).toEqual([0, expect.stringMatching(/^imported \d+ rows/)]);
  });

  it("streams a large namespace: 20,000 versions leave in cursor batches, each written before the next is read", async () => {
    const target = await cliDatabase("postgres", postgresUrl());
    const database = await open(target);
    onTestFinished(() => database.close());
    await database.db.execute(sql`INSERT INTO teams (id, name) VALUES ('00000000-0000-4000-8000-000000000001', 'big')`);
    await database.db.execute(
      sql`INSERT INTO namespaces (id, team_id, name, cursor) VALUES ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001', 'big-ns', 20000)`,
    );
    await database.db.execute(sql`INSERT INTO versions (namespace_id, path, version, kind, content, sha256, size_bytes, author_name, cursor)
      SELECT '00000000-0000-4000-8000-000000000002', 'f' || g || '.md', 1, 'write', repeat('x', 100), md5(g::text), 100, 'bulk', g
      FROM generate_series(1, 20000) g`);

    const chunks: number[] = [];
    let release: () => void = () => undefined;
    let held: { versionsSoFar: number; chunks: number } | null = null;
    let versionLines = 0;
    const exporting = exportBackup(
      database.db,
      async (chunk) => {
        chunks.push(lines(chunk).length);
        if (!chunk.includes('{"table":"versions"')) return;
        versionLines += lines(chunk).length;
        // Hold the first chunk of versions until the test has looked.
        if (!held) {
          held = { versionsSoFar: versionLines, chunks: chunks.length };
          await new Promise<void>((r) => (release = r));
        }
      },
      { batchRows: 1000 },
    );
    for (let i = 0; i < 500 && !held; i++) await new Promise((r) => setTimeout(r, 10));
    expect(held).toEqual({ versionsSoFar: 1000, chunks: expect.any(Number) });
    // While the reader holds a chunk the export waits (its cursor open, 19,000 versions unread): nothing more arrives.
    await new Promise((r) => setTimeout(r, 300));
    expect(chunks.length).toBe(held!.chunks);
    expect(versionLines).toBe(1000);
    release();
    const summary = await exporting;
    expect(summary.rows["versions"]).toBe(20_000);
    expect(Math.max(...chunks)).toBeLessThanOrEqual(1000);
    expect(chunks.reduce((a, b) => a + b, 0)).toBe(2 + Object.values(summary.rows).reduce((a, b) => a + b, 0));
    expect(chunks.length).toBeGreaterThanOrEqual(20);
    const rows = await rowsOf<{ n: number }>(database, sql`SELECT count(*)::int AS n FROM versions`);
    expect(rows[0]!.n).toBe(20_000);
  }, 120_000);
});
