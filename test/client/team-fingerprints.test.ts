/**
 * One secret, one fingerprint per team (issue 10): clients fetch the team's fingerprint key at init
 * and every sync, so the same value held back on two clients and refused by the server shows the
 * same fingerprint, another team's client shows an unrelated one, and a rotation reaches clients.
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { DATABASE_KINDS, rowsOf } from "@teammem/server/testing";
import { sql } from "drizzle-orm";
import { teammem, tempDir } from "../support/cli.js";
import { setup, sync } from "../support/clients.js";

const heldFingerprints = async (dir: string): Promise<string[]> =>
  JSON.parse(await readFile(join(dir, ".teammem", "held-back.json"), "utf8")).entries.flatMap((e: { findings: { fingerprint: string }[] }) =>
    e.findings.map((f) => f.fingerprint),
  );

describe.each(DATABASE_KINDS)("team fingerprints on %s", (kind) => {
  it("gives a secret the same fingerprint on two clients and in the audit log, another in another team, and follows a key rotation", async () => {
    const { server, a, b, envA, envB } = await setup(kind);
    // init fetched the team's key already (private, like the config).
    expect((await stat(join(a, ".teammem", "scan-policy.json"))).mode & 0o777).toBe(0o600);
    const pat = fakeGithubPat(5151);
    const note = `deploy with ${pat}\n`;
    await writeFile(join(a, "team", "deploy.md"), note);
    await writeFile(join(b, "team", "ops.md"), `# ops\n\n${note}`);
    expect((await sync(a, envA)).code).toBe(0);
    expect((await sync(b, envB)).code).toBe(0);
    const [fa] = await heldFingerprints(a);
    expect(fa).toMatch(/^[0-9a-f]{32}$/);
    expect(await heldFingerprints(b)).toEqual([fa]);

    // The audit log holds both block reports with that fingerprint, under key 1.
    const reported = await rowsOf<{ findings: { fingerprint?: string }[] }>(server.database, sql`SELECT findings FROM audit_events WHERE kind = 'client_blocked'`);
    expect(reported.map((r) => r.findings[0]!.fingerprint)).toEqual([fa, fa]);

    // A client of another team: an unrelated fingerprint for the same value.
    const root = await tempDir();
    onTestFinished(() => root.remove());
    const c = join(root.path, "c");
    const envC = { TEAMMEM_TOKEN: await server.token("carol", "globex") };
    expect((await teammem(["init", "--dir", c, "--server", server.url, "--namespace", "globex-web"], envC)).code).toBe(0);
    await writeFile(join(c, "team", "deploy.md"), note);
    await sync(c, envC);
    const [fc] = await heldFingerprints(c);
    expect(fc).toMatch(/^[0-9a-f]{32}$/);
    expect(fc).not.toBe(fa);

    // An admin rotates the team's key: the next sync says so, and the fingerprint changes on both clients alike.
    const admin = await server.token("ada", "default", "admin");
    const rotated = await fetch(`${server.url}/v1/admin/fingerprint-key/rotate`, { method: "POST", headers: { authorization: `Bearer ${admin}` } });
    expect(await rotated.json()).toEqual({ fingerprintKeyId: 2 });
    const afterA = await sync(a, envA);
    expect(afterA.stderr).toContain("the team's fingerprint key was rotated (key 2)");
    await sync(b, envB);
    const [fa2] = await heldFingerprints(a);
    expect(fa2).not.toBe(fa);
    expect(await heldFingerprints(b)).toEqual([fa2]);
    expect(await heldFingerprints(c)).toEqual([fc]);
    // The audit log gets the held-back files again under key 2, so an admin can match what a
    // teammate's status now shows (they were reported under key 1 only before).
    const rereported = await rowsOf<{ findings: { fingerprint?: string }[] }>(server.database, sql`SELECT findings FROM audit_events WHERE kind = 'client_blocked' ORDER BY id`);
    expect(rereported.map((r) => r.findings[0]!.fingerprint)).toEqual([fa, fa, fc, fa2, fa2]);
  });
});
