/**
 * One secret, one fingerprint (issue 10): the built `teammem-scan --key-file` with the team's key
 * prints the fingerprint the client shows (`teammem status`, held back by a sync), the client's
 * block report carries into the audit log, and the server's own re-scan records when it refuses
 * the value, so an admin can match what each of them prints. The key comes from where the
 * scanner's README says: the memory folder's `.teammem/scan-policy.json`, or its key alone.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { sql } from "drizzle-orm";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { rowsOf } from "@teammem/server/testing";
import { teammem, tempDir } from "../support/cli.js";
import { startTestServer } from "../support/server.js";

const SCANNER_CLI = fileURLToPath(new URL("../../packages/scanner/bin/teammem-scan.js", import.meta.url));
const exec = promisify(execFile);

/** Runs the installed-style launcher (over dist/); resolves with its exit code and output whatever the code. */
async function teammemScan(args: string[], cwd: string, home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [SCANNER_CLI, ...args], { cwd, env: { PATH: process.env["PATH"] ?? "", HOME: home } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("teammem-scan fingerprints match the team's (client and server)", () => {
  it("gives a secret the same fingerprint in teammem-scan --key-file, teammem status, a block report and the server's re-scan", async () => {
    expect(existsSync(join(SCANNER_CLI, "..", "..", "dist", "cli.js")), "the scanner is not built: run `npx tsc -b` first").toBe(true);
    const server = await startTestServer("postgres");
    onTestFinished(() => server.dispose());
    const root = await tempDir();
    onTestFinished(() => root.remove());
    const a = join(root.path, "a");
    const env = { TEAMMEM_TOKEN: await server.token("alice") };
    expect(await teammem(["init", "--dir", a, "--server", server.url, "--namespace", "acme-web"], env)).toMatchObject({ code: 0 });
    const pat = fakeGithubPat(7373);
    const content = `# Deploy\n\nexport GITHUB_TOKEN=${pat}\n`;
    await writeFile(join(a, "team", "deploy.md"), content);

    // The client: a sync holds the file back; status shows the fingerprint; the block report takes it to the audit log.
    expect((await teammem(["sync", "--dir", a], env)).code).toBe(0);
    const status = JSON.parse((await teammem(["status", "--dir", a, "--json"])).stdout) as { heldBack: { findings: { fingerprint: string }[] }[] };
    const client = status.heldBack[0]!.findings[0]!.fingerprint;
    expect(client).toMatch(/^[0-9a-f]{32}$/);
    const audit = async (kind: string) =>
      (await rowsOf<{ findings: { fingerprint?: string }[] }>(server.database, sql`SELECT findings FROM audit_events WHERE kind = ${kind} ORDER BY id`)).map(
        (r) => r.findings[0]!.fingerprint,
      );
    expect(await audit("client_blocked")).toEqual([client]);

    // The server: its own re-scan refuses the value sent by a client that does not scan, and audits it.
    const res = await fetch(`${server.url}/v1/namespaces/acme-web/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.TEAMMEM_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ operations: [{ opId: "raw-upload-1", path: "raw.md", baseVersion: 0, content }] }),
    });
    expect((await res.json()) as unknown).toMatchObject({ results: [{ status: "rejected", code: "secret_detected" }] });
    expect(await audit("upload_rejected")).toEqual([client]);

    // teammem-scan, with the memory folder's scan-policy.json, and with the key alone in a file.
    const policy = join(a, ".teammem", "scan-policy.json");
    const keyFile = join(root.path, "team-key");
    await writeFile(keyFile, (JSON.parse(await readFile(policy, "utf8")) as { fingerprintKey: { key: string } }).fingerprintKey.key + "\n", { mode: 0o600 });
    for (const key of [policy, keyFile]) {
      const r = await teammemScan(["--format", "json", "--key-file", key, join("team", "deploy.md")], a, root.path);
      expect(r.code, r.stderr).toBe(1);
      expect((JSON.parse(r.stdout) as { ruleId: string; fingerprint: string }[]).map((f) => [f.ruleId, f.fingerprint])).toEqual([["github-pat", client]]);
      expect(r.stdout + r.stderr).not.toContain(pat);
    }
    // Without the team's key (the default per-installation key): another fingerprint, as documented.
    const own = await teammemScan(["--format", "json", join("team", "deploy.md")], a, root.path);
    expect((JSON.parse(own.stdout) as { fingerprint: string }[])[0]!.fingerprint).not.toBe(client);
  });
});
