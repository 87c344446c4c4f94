/**
 * The admin commands of `teammem-server` (issue 11, "Admin CLI"): `audit list|show|summary|export`,
 * `token list`, `team list`, `member list|role`, `bypass list|approve|deny|revoke`, in-process,
 * through a running server's admin API and offline on the database, on both database kinds; and
 * `token create` refusing a team that does not exist.
 */
import { describe, expect, inject, it } from "vitest";
import { scan } from "@teammem/scanner";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { DATABASE_KINDS } from "../../src/testing.js";
import { cli, cliDatabase, startCli } from "./cli-harness.js";

describe.each(DATABASE_KINDS)("teammem-server admin commands on %s", (kind) => {
  it("lists, decides and audits through the admin API and on the database, with the same filters", { timeout: 120_000 }, async () => {
    const { args, env } = await cliDatabase(kind, inject("postgresUrl"));
    const created = await cli(["team", "create", "acme", "--admin", "ada", ...args], env);
    expect(created.status).toBe(0);
    const admin = created.stdout.trim();
    const ann = (await cli(["token", "create", "--team", "acme", "--user", "ann", "--role", "member", ...args], env)).stdout.trim();
    expect((await cli(["team", "create", "globex", ...args], env)).status).toBe(0);

    const typo = await cli(["token", "create", "--team", "acme-typo", "--user", "x", "--role", "member", ...args], env);
    expect(typo).toMatchObject({ status: 2, stdout: "" });
    expect(typo.stderr).toContain('team "acme-typo" does not exist; create it with team create acme-typo (existing teams: acme, globex)');
    expect((await cli(["team", "list", ...args], env)).stdout).not.toContain("acme-typo");

    // A running server: ann asks for two bypasses and uploads a secret.
    const server = await startCli(args, env);
    const call = async (token: string, method: string, path: string, body?: unknown) =>
      (await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      })).json() as Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const policy = await call(ann, "GET", "/v1/team/scan-policy");
    const ask = async (seed: number) => {
      const [f] = scan(`k=${fakeGithubPat(seed)}\n`, { fingerprintKey: policy.fingerprintKey.key });
      const body = { namespace: "web", path: "team/k.md", ruleId: f!.ruleId, line: 1, fingerprint: f!.fingerprint, fingerprintKeyId: policy.fingerprintKey.id, reason: "test_value", reasonText: `sample ${seed}` };
      return (await call(ann, "POST", "/v1/team/bypasses", body)).bypass as { id: string; fingerprint: string };
    };
    const [first, second] = [await ask(1), await ask(2)];
    await call(ann, "POST", "/v1/namespaces/web/batch", { operations: [{ opId: "op-secret-1", path: "leak.md", baseVersion: 0, content: `x ${fakeGithubPat(3)}\n` }] });

    const api = ["--server", server.url, "--token", admin];
    const listed = await cli(["bypass", "list", ...api], env);
    expect(listed.status).toBe(0);
    expect(listed.stdout.trim().split("\n").map((l) => l.split("\t").slice(0, 4))).toEqual([
      [second.id, "pending", "web:k.md:1", "github-pat"],
      [first.id, "pending", "web:k.md:1", "github-pat"],
    ]);
    const approved = await cli(["bypass", "approve", first.id, "--note", "docs sample", "--json", ...api], env);
    expect(JSON.parse(approved.stdout).bypass).toMatchObject({ id: first.id, status: "approved", decidedBy: "ada", note: "docs sample" });
    const again = await cli(["bypass", "approve", first.id, ...api], env);
    expect(again).toMatchObject({ status: 1, stdout: "" });
    expect(again.stderr).toContain("(bypass_not_pending)");
    // The environment names the server as well as the options do.
    const viaEnv = await cli(["audit", "list", "--kind", "bypass_approved", "--json"], { ...env, TEAMMEM_SERVER: server.url, TEAMMEM_ADMIN_TOKEN: admin });
    expect(JSON.parse(viaEnv.stdout).events).toMatchObject([{ kind: "bypass_approved", actor: "ada", bypassId: first.id, findings: [{ fingerprint: first.fingerprint }] }]);
    const byRule = await cli(["audit", "list", "--rule", "github-pat", "--kind", "upload_rejected,bypass_requested", ...api], env);
    expect(byRule.stdout.trim().split("\n").map((l) => l.split("\t")[2])).toEqual(["upload_rejected", "bypass_requested", "bypass_requested"]);
    const id = byRule.stdout.split("\t")[0]!;
    expect(JSON.parse((await cli(["audit", "show", id, ...api], env)).stdout)).toMatchObject({ id: Number(id), kind: "upload_rejected", actor: "ann", path: "leak.md" });
    const summary = await cli(["audit", "summary", "--user", "ann", ...api], env);
    expect(summary.stdout).toContain("kind\tbypass_requested\t2\n");
    const csv = await cli(["audit", "export", "--format", "csv", "--kind", "bypass_requested", ...api], env);
    expect(csv.stdout.split("\n").filter(Boolean)).toHaveLength(3); // header and two events
    expect((await cli(["token", "list", ...api], env)).stdout).toMatch(/\tann\tmember\t.*\tnever\tvalid/);
    expect((await cli(["team", "list", ...api], env)).stdout).toMatch(/^acme\t.*\t2 member\(s\)\n$/);
    expect((await cli(["member", "role", "ann", "reader", ...api], env)).stdout).toBe("ann: member -> reader\n");
    expect((await cli(["member", "list", ...api], env)).stdout).toMatch(/^ada\tadmin\t.*\nann\treader\t/);
    const otherTeam = await cli(["member", "list", "--team", "globex", ...api], env);
    expect([otherTeam.status, otherTeam.stderr]).toEqual([2, expect.stringContaining('the token is of team "acme", not "globex"')]);
    for (const [argv, message] of [
      [["audit", "list", "--kind", "nope", ...api], "--kind"],
      [["audit", "list", "--from", "yesterday", ...api], "--from"],
      [["audit", "summary", "--from", "2026-02-01T00:00:00Z", "--to", "2026-01-01T00:00:00Z", ...api], "--to: must not be before from"],
      [["audit", "export", "--from", "2026-02-01T00:00:00Z", "--to", "2026-01-01T00:00:00Z", ...api], "--to: must not be before from"],
      [["audit", "list", "--fingerprint", "xyz", ...api], "--fingerprint"],
      [["audit", "list", "--limit", "0", ...api], "--limit"],
      [["audit", "show", "-3", ...api], "the event id is a positive whole number"],
      [["bypass", "approve", "not-a-uuid", ...api], "the bypass id is a UUID"],
      [["bypass", "deny", second.id, "--note", "a\nb", ...api], "--note"],
      [["bypass", "list", "--server", server.url], "give an admin token with --token or TEAMMEM_ADMIN_TOKEN"],
      [["bypass", "list", "--server", "ftp://x", "--token", admin], "the URL must be http:// or https://"],
      [["member", "role", "ann", "owner", ...api], "Allowed choices are admin, member, reader"],
    ] as const) {
      const r = await cli([...argv], env);
      expect({ argv: argv.slice(0, 4), status: r.status, stderr: r.stderr }).toEqual({ argv: argv.slice(0, 4), status: 2, stderr: expect.stringContaining(message) });
    }
    await call(admin, "POST", "/v1/namespaces/web/batch", { operations: [{ opId: "op-private-1", path: "note.md", baseVersion: 0, content: "PRIVATE-7f3a\n" }] });
    const purged = await cli(["purge", "--namespace", "web", "--path", "note.md", "--entry-version", "1", "--reason", "private note", ...api], env);
    expect(purged).toMatchObject({ status: 0, stdout: "purged note.md version(s) 1; the head is now tombstone version 2; 0 conflict record(s), 0 stored result(s) scrubbed\n" });
    const badPurge = await cli(["purge", "--namespace", "web", "--path", "note.md", "--entry-version", "0", "--reason", "x", ...api], env);
    expect([badPurge.status, badPurge.stderr]).toEqual([2, expect.stringContaining("--entry-version: ")]);
    const member = await cli(["bypass", "list", "--server", server.url, "--token", ann], env);
    expect([member.status, member.stderr]).toEqual([1, expect.stringContaining("(forbidden)")]);
    expect(await server.stop()).toBe(0);

    // Offline, on the database: the same commands, acting as `cli`.
    const all = await cli(["bypass", "list", "--team", "acme", "--status", "all", ...args], env);
    expect(all.stdout.trim().split("\n").map((l) => l.split("\t").slice(0, 2))).toEqual([
      [second.id, "pending"],
      [first.id, "approved"],
    ]);
    const denied = await cli(["bypass", "deny", second.id, "--team", "acme", "--note", "rotate it", ...args], env);
    expect(denied.stdout).toContain(`${second.id}\tdenied`);
    const revoked = await cli(["bypass", "revoke", first.id, "--team", "acme", "--json", ...args], env);
    expect(JSON.parse(revoked.stdout).bypass).toMatchObject({ status: "revoked", revokedBy: "cli" });
    const decisions = JSON.parse((await cli(["audit", "list", "--team", "acme", "--kind", "bypass_denied,bypass_revoked", "--json", ...args], env)).stdout);
    expect(decisions.events.map((e: { kind: string; actor: string }) => [e.kind, e.actor])).toEqual([
      ["bypass_revoked", "cli"],
      ["bypass_denied", "cli"],
    ]);
    // Without --team the audit commands read every team's events.
    const everyTeam = await cli(["audit", "summary", "--kind", "token_issued", "--json", ...args], env);
    expect(JSON.parse(everyTeam.stdout).total).toBeGreaterThanOrEqual(3);
    const jsonl = await cli(["audit", "export", "--team", "acme", "--user", "ann", ...args], env);
    expect(jsonl.stdout.trim().split("\n").every((l) => JSON.parse(l).id > 0)).toBe(true);
    expect((await cli(["member", "role", "ann", "member", "--team", "acme", ...args], env)).stdout).toBe("ann: reader -> member\n");
    const lastAdmin = await cli(["member", "role", "ada", "member", "--team", "acme", ...args], env);
    expect([lastAdmin.status, lastAdmin.stderr]).toEqual([1, expect.stringContaining("(last_admin)")]);
    expect((await cli(["token", "list", "--team", "acme", ...args], env)).stdout.trim().split("\n")).toHaveLength(2);
    expect((await cli(["team", "list", ...args], env)).stdout).toMatch(/^acme\t.*\nglobex\t/);
    const purgedAgain = await cli(["purge", "--team", "acme", "--namespace", "web", "--path", "note.md", "--entry-version", "1", "--reason", "again", ...args], env);
    expect(purgedAgain.stdout).toContain("purged note.md version(s) none (already purged)");
    const noTeam = await cli(["bypass", "list", ...args], env);
    expect([noTeam.status, noTeam.stderr]).toEqual([2, expect.stringContaining("--team <name> is required on the database (teams: acme, globex)")]);
    const unknownTeam = await cli(["member", "list", "--team", "nope", ...args], env);
    expect([unknownTeam.status, unknownTeam.stderr]).toEqual([2, expect.stringContaining('team "nope" does not exist; existing teams: acme, globex')]);
    const tokenWithoutServer = await cli(["token", "list", "--team", "acme", "--token", admin, ...args], env);
    expect(tokenWithoutServer.status).toBe(2);
    expect(tokenWithoutServer.stderr).not.toContain(admin);
  });

  it("token revoke takes --server/--token as token list does: revokes through the admin API, with the same refusals (try13 F9)", { timeout: 120_000 }, async () => {
    const { args, env } = await cliDatabase(kind, inject("postgresUrl"));
    const admin = (await cli(["team", "create", "acme", "--admin", "ada", ...args], env)).stdout.trim();
    expect((await cli(["team", "create", "globex", ...args], env)).status).toBe(0);
    const issued = await cli(["token", "create", "--team", "acme", "--user", "ann", "--role", "member", ...args], env);
    const ann = issued.stdout.trim();
    const annId = /issued token ([0-9a-f-]{36})/.exec(issued.stderr)![1]!;
    const server = await startCli(args, env);
    expect((await fetch(`${server.url}/v1/team/scan-policy`, { headers: { authorization: `Bearer ${ann}` } })).status).toBe(200);

    // The refusals of token list and token revoke are the same lines with the same exit codes.
    const both = async (extra: string[], runEnv: Record<string, string> = env) => {
      const [list, revoke] = [await cli(["token", "list", ...extra], runEnv), await cli(["token", "revoke", annId, ...extra], runEnv)];
      expect(revoke).toEqual(list);
      return revoke;
    };
    expect(await both(["--server", server.url])).toEqual({ status: 2, stdout: "", stderr: `teammem-server: ${server.url}: give an admin token with --token or TEAMMEM_ADMIN_TOKEN\n` });
    expect(await both(["--team", "acme", "--token", admin, ...args])).toEqual({
      status: 2,
      stdout: "",
      stderr: "teammem-server: --token goes with --server URL (or TEAMMEM_SERVER); without a server the command works on the database\n",
    });
    expect(await both(["--server", "ftp://example.com", "--token", admin])).toMatchObject({ status: 2, stderr: expect.stringContaining("the URL must be http:// or https://") });
    expect(await both(["--server", server.url, "--token", admin, "--team", "globex"])).toEqual({
      status: 2,
      stdout: "",
      stderr: 'teammem-server: the token is of team "acme", not "globex"; the admin API acts on the token\'s team only\n',
    });
    expect(await both(["--server", server.url, "--token", "not-a-token"])).toMatchObject({ status: 1, stdout: "", stderr: expect.stringContaining("(unauthorized)") });

    const revoked = await cli(["token", "revoke", annId, "--server", server.url, "--token", admin], env);
    expect(revoked).toMatchObject({ status: 0, stderr: "" });
    expect(revoked.stdout).toMatch(new RegExp(`^revoked token ${annId} \\(ann\\) at \\S+\n$`));
    const refused = await fetch(`${server.url}/v1/team/scan-policy`, { headers: { authorization: `Bearer ${ann}` } });
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([401, "token_revoked"]);
    // The environment names the server as the options do; --json prints the admin API's answer.
    const viaEnv = await cli(["token", "revoke", annId, "--json"], { ...env, TEAMMEM_SERVER: server.url, TEAMMEM_ADMIN_TOKEN: admin });
    expect(viaEnv.status).toBe(0);
    expect(JSON.parse(viaEnv.stdout)).toEqual({ tokenId: annId, revokedAt: expect.any(String) });
    const unknown = await cli(["token", "revoke", "00000000-0000-4000-8000-000000000000", "--server", server.url, "--token", admin], env);
    expect(unknown).toEqual({ status: 1, stdout: "", stderr: `teammem-server: ${server.url} refused: no such token in this team (not_found)\n` });
    const audit = await cli(["audit", "list", "--kind", "token_revoked", "--json", "--server", server.url, "--token", admin], env);
    const event = { kind: "token_revoked", actor: "ada", tokenId: annId, targetUser: "ann" };
    expect(JSON.parse(audit.stdout).events).toMatchObject([event, event]); // the option run and the environment run
  });
});
