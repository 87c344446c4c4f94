/**
 * Issue 12: a token the server refuses (revoked, expired, or one it never issued) makes every
 * command that talks to the server exit 1 with one error line carrying the stable code.
 * `status` and `doctor` still print what they know locally (stdout), but their exit code says the
 * server refused the token (status exited 0 before, doctor printed no error line).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { teammem } from "../support/cli.js";
import { setup, sync } from "../support/clients.js";

/** Every command that asks the server something, as argv after the command's name. */
const COMMANDS: readonly string[][] = [
  ["status"],
  ["sync"],
  ["sync", "--dry-run"],
  ["watch"],
  ["history", "team/note.md"],
  ["diff", "team/note.md"],
  ["restore", "team/note.md", "--version", "1"],
  ["resolve", "team/note.md", "--take", "theirs"],
  ["doctor"],
  // Last: the edit it sends stays queued (restore would refuse it as a local change first).
  ["push", "team/note.md"],
];

/** Runs `argv` (text, then --json where the command has it) and checks exit 1 and one `[code]` error line on stderr. */
async function expectRefused(dir: string, env: Record<string, string>, code: string, commands = COMMANDS) {
  for (const argv of commands) {
    if (argv[0] === "push") await writeFile(join(dir, "team", "note.md"), "v2\n"); // something to send
    const text = await teammem([...argv, "--dir", dir], env);
    expect({ argv, code: text.code }).toEqual({ argv, code: 1 });
    const lines = text.stderr.split("\n").filter((l) => l !== "");
    expect({ argv, lines }).toEqual({ argv, lines: [expect.stringMatching(new RegExp(`^teammem: .*${code}.* \\[${code}\\]$`))] });
  }
  // Under --json the code is in the data too.
  const status = await teammem(["status", "--dir", dir, "--json"], env);
  expect(status.code).toBe(1);
  expect(JSON.parse(status.stdout).serverCheck).toMatchObject({ checked: true, reachable: true, code });
  const doctor = await teammem(["doctor", "--dir", dir, "--json"], env);
  expect(doctor.code).toBe(1);
  expect(JSON.parse(doctor.stdout)).toMatchObject({ ok: false, error: { code } });
}

describe("every command with a token the server refuses", () => {
  it("revoked: exit 1 and one token_revoked line from each; status still shows the local state", async () => {
    const { server, a, envA } = await setup("pglite");
    await writeFile(join(a, "team", "note.md"), "v1\n");
    expect((await sync(a, envA)).code).toBe(0);
    const before = await teammem(["status", "--dir", a], envA);
    expect(before).toMatchObject({ code: 0, stderr: "" });
    const admin = await server.token("root", "default", "admin");
    const tokenId = JSON.parse(Buffer.from(envA.TEAMMEM_TOKEN!.split(".")[1]!, "base64url").toString("utf8")).jti as string;
    const revoked = await fetch(`${server.url}/v1/admin/tokens/${tokenId}`, { method: "DELETE", headers: { authorization: `Bearer ${admin}` } });
    expect(revoked.status).toBe(200);
    await expectRefused(a, envA, "token_revoked");
    const status = await teammem(["status", "--dir", a], envA);
    // Nothing lost: push's edit stays queued, and status lists it under the refusal.
    expect(status.stdout).toMatch(
      /^namespace acme-web at http:\S+; cursor 1\nserver refused the token: .*token_revoked.*; as of the last sync at \S+:\npending \(1 in outbox\):\n {2}put team\/note\.md \(base v1\)\n$/,
    );
    expect(status.stderr).toMatch(/^teammem: .* token_revoked: .*; the status above is local state only \[token_revoked\]\n$/);
    // --offline asks no server: nothing refused, exit 0.
    expect((await teammem(["status", "--dir", a, "--offline"], envA)).code).toBe(0);
  }, 300_000);

  it("expired and never issued (unauthorized): status, sync and doctor exit 1 with the code", async () => {
    const { server, a } = await setup("pglite");
    const expiring = { TEAMMEM_TOKEN: await server.token("carol", "default", "member", 1) };
    await writeFile(join(a, "team", "note.md"), "v1\n");
    await sleep(2_100);
    const some = [["status"], ["sync"], ["doctor"]];
    await expectRefused(a, expiring, "token_expired", some);
    // Same shape, signed with another secret: a token this server never issued.
    const [head, body] = expiring.TEAMMEM_TOKEN!.split(".");
    await expectRefused(a, { TEAMMEM_TOKEN: `${head}.${body}.${Buffer.from("x".repeat(32)).toString("base64url")}` }, "unauthorized", some);
  }, 300_000);
});
