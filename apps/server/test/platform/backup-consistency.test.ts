/**
 * A backup whose rows are each well-formed but contradict the server's invariants (a negative or
 * lowered cursor, an entry without its version, a live-entry count that differs, a value outside
 * its column's set, a stored operation result the server would replay in another shape) is refused by `import` with a stable code and nothing imported. Before, such a
 * file imported fine and the server then answered 500 to every read or write of the namespace.
 * The real export it starts from (writes, a delete, a rename, a conflict, a purge of a head, an
 * approved bypass) imports cleanly, so the checks hold on what the server writes.
 */
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackupError, type BackupErrorCode } from "../../src/backup/backup-format.js";
import { exportBackup } from "../../src/backup/export-backup.js";
import { importBackup } from "../../src/backup/import-backup.js";
import { readLines } from "../../src/backup/read-lines.js";
import { takeTestDatabase } from "../support/database.js";
import { bearer, startTestServer, type TestServer } from "./support.js";

type Row = Record<string, unknown>;
/** Edits the rows of one table (in place) of a backup's lines. */
const editRows = (lines: string[], table: string, edit: (row: Row, index: number) => void) => {
  let index = 0;
  return lines.map((line) => {
    const parsed = JSON.parse(line) as { table?: string; row?: Row };
    if (parsed.table !== table) return line;
    edit(parsed.row!, index++);
    return JSON.stringify(parsed);
  });
};

describe("import refuses a backup whose rows contradict each other", () => {
  let server: TestServer;
  let good: string[] = [];

  beforeAll(async () => {
    server = await startTestServer("postgres", { limits: { rateLimitMax: 0 } });
    const { token } = await server.token("acme", "ada", "admin");
    const call = async (method: "GET" | "POST" | "DELETE", url: string, payload?: object) => {
      const res = await server.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
      return res.json();
    };
    const batch = (operations: object[]) => call("POST", "/v1/namespaces/acme-web/batch", { operations: operations.map((o) => ({ opId: randomUUID(), ...o })) });
    await batch([
      { path: "a.md", baseVersion: 0, content: "one\n" },
      { path: "b.md", baseVersion: 0, content: "bee\n" },
      { path: "c.md", baseVersion: 0, content: "sea\n" },
      { path: "leak.md", baseVersion: 0, content: "oops\n" },
    ]);
    await batch([
      { path: "b.md", baseVersion: 1, delete: true },
      { path: "d.md", baseVersion: 0, content: "sea\n", renameFrom: "c.md", renameFromVersion: 1 },
      { path: "a.md", baseVersion: 1, content: "two\n" },
    ]);
    expect((await batch([{ path: "a.md", baseVersion: 1, content: "three\n" }])).results[0].status).toBe("conflict");
    await call("POST", "/v1/admin/namespaces/acme-web/purge", { path: "leak.md", version: 1, reason: "pasted by mistake" });
    const policy = await call("GET", "/v1/team/scan-policy");
    const bypass = await call("POST", "/v1/team/bypasses", {
      namespace: "acme-web",
      path: "keys.md",
      ruleId: "github-pat",
      line: 1,
      fingerprint: randomUUID().replaceAll("-", ""),
      fingerprintKeyId: policy.fingerprintKey.id,
      reason: "test_value",
    });
    await call("POST", `/v1/admin/bypasses/${bypass.bypass.id}/approve`);
    let text = "";
    await exportBackup(server.tdb.database.db, (chunk) => void (text += chunk));
    good = text.split("\n").filter(Boolean);
  });
  afterAll(() => server?.close());

  /**
   * Imports `lines` into an empty migrated PostgreSQL database (the file's pool: emptied after each
   * import, as a new one would be, without a CREATE, migrations and a DROP per case): null when it
   * was imported, else the refusal's code and message.
   */
  const importLines = async (lines: string[]): Promise<{ code: BackupErrorCode; message: string } | null> => {
    const target = await takeTestDatabase("postgres");
    try {
      await importBackup(target.database.db, readLines(Readable.from([lines.join("\n") + "\n"])), { source: "test" });
      return null;
    } catch (e) {
      if (e instanceof BackupError) return { code: e.code, message: e.message };
      throw e;
    } finally {
      await target.dispose();
    }
  };

  it("imports the server's own export (rename, delete, conflict, purged head, bypass)", async () => {
    expect(await importLines(good)).toBeNull();
  });

  it.each<[string, (lines: string[]) => string[], BackupErrorCode, RegExp]>([
    ["a negative namespace cursor", (l) => editRows(l, "namespaces", (r) => void (r["cursor"] = -5)), "backup_invalid_line", /invalid namespaces row: cursor: Too small/],
    ["a negative entry version", (l) => editRows(l, "entries", (r) => void (r["version"] = -1)), "backup_invalid_line", /invalid entries row: version: Too small/],
    ["a negative size", (l) => editRows(l, "versions", (r) => void (r["base_version"] = -2)), "backup_invalid_line", /invalid versions row: base_version: Too small/],
    ["a conflict status outside its set", (l) => editRows(l, "conflicts", (r) => void (r["status"] = "weird")), "backup_invalid_line", /conflicts row: status: must be one of open, resolved/],
    ["a bypass status outside its set", (l) => editRows(l, "bypasses", (r) => void (r["status"] = "weird")), "backup_invalid_line", /bypasses row: status: must be one of pending, approved/],
    ["a role outside its set", (l) => editRows(l, "memberships", (r) => void (r["role"] = "root")), "backup_invalid_line", /memberships row: role: must be one of admin, member, reader/],
    ["a bypass reason outside its set", (l) => editRows(l, "bypasses", (r) => void (r["reason"] = "because")), "backup_invalid_line", /bypasses row: reason: must be one of false_positive, test_value, will_fix/],
    ["a stored operation result of another shape (replayed to a client as is)", (l) => editRows(l, "operations", (r) => void (r["result"] = { x: 1 })), "backup_invalid_line", /invalid operations row: result\.status: Invalid discriminator/],
    ["audit findings of another shape", (l) => editRows(l, "audit_events", (r) => void (r["findings"] = [{ rule: 1 }])), "backup_invalid_line", /invalid audit_events row: findings\.0\.ruleId/],
    ["a namespace cursor below its changes", (l) => editRows(l, "namespaces", (r) => void (r["cursor"] = 1)), "backup_inconsistent", /namespace "acme-web": cursor 1 is below its \w+' highest cursor \d+/],
    ["an entry at a version with no row", (l) => editRows(l, "entries", (r, i) => void (i === 0 && (r["version"] = 40))), "backup_inconsistent", /the entry of "a\.md" is at version 40, which has no version row/],
    ["an entry below its path's latest version", (l) => editRows(l, "entries", (r) => void (r["path"] === "a.md" && (r["version"] = 1))), "backup_inconsistent", /"a\.md" has version 2 above its entry's version 1/],
    ["a live-entry count that differs", (l) => editRows(l, "namespaces", (r) => void (r["live_entries"] = 99)), "backup_inconsistent", /live_entries is 99, its entries not deleted number \d+/],
    ["a conflict naming a missing head", (l) => editRows(l, "conflicts", (r) => void (r["head_version"] = 9)), "backup_inconsistent", /conflict \S+ on "a\.md" names head version 9, which does not exist/],
  ])("%s", async (_what, edit, code, message) => {
    const refused = await importLines(edit(good));
    expect(refused).toEqual({ code, message: expect.stringMatching(message) });
  });
});
