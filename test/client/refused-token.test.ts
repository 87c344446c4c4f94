/**
 * A revoked or expired token (try13 F10): `teammem sync` and `teammem push` print one error line
 * with the stable code and exit 1; no summary of work that never happened ("pulled 0 change(s)",
 * "pending in outbox"...) on stdout, and under --json only `{ ok: false, error, pending }`. The line
 * says the queued change waits for a new token, not for the next sync (try16 F9).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { teammem } from "../support/cli.js";
import { setup, sync } from "../support/clients.js";

/** What `teammem sync`/`push` must print for a token the server refuses with `code`. */
async function expectRefused(dir: string, env: Record<string, string>, code: string) {
  for (const argv of [["sync", "--dir", dir], ["push", "--dir", dir, "team/note.md"]]) {
    const text = await teammem(argv, env);
    expect({ argv, code: text.code, stdout: text.stdout }).toEqual({ argv, code: 1, stdout: "" });
    // The next sync does not send it (try16 F9): the line says what does.
    const queued = argv[0] === "sync" ? "1 change is queued in the outbox" : "1 change\\(s\\) stay queued";
    expect(text.stderr).toMatch(
      new RegExp(
        `^teammem: server http://127\\.0\\.0\\.1:\\d+ answered 401 ${code}: [^\\n]+; ${queued}, sent once the server accepts the token: ` +
          `get a new token \\(teammem init --token T, or TEAMMEM_TOKEN\\) \\[${code}\\]\\n$`,
      ),
    );
    const json = await teammem([...argv, "--json"], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ ok: false, error: { code, message: expect.stringContaining(`answered 401 ${code}`) }, pending: 1 });
  }
}

describe("a token the server refuses", () => {
  it("revoked: sync and push give one token_revoked error and exit 1, no summary", async () => {
    const { server, a, envA } = await setup("pglite");
    await writeFile(join(a, "team", "note.md"), "v1\n");
    expect((await sync(a, envA)).code).toBe(0);
    const admin = await server.token("root", "default", "admin");
    const tokenId = JSON.parse(Buffer.from(envA.TEAMMEM_TOKEN!.split(".")[1]!, "base64url").toString("utf8")).jti as string;
    const revoked = await fetch(`${server.url}/v1/admin/tokens/${tokenId}`, { method: "DELETE", headers: { authorization: `Bearer ${admin}` } });
    expect(revoked.status).toBe(200);
    await writeFile(join(a, "team", "note.md"), "v2\n");
    await expectRefused(a, envA, "token_revoked");
  });

  it("expired: sync and push give one token_expired error and exit 1, no summary", async () => {
    const { server, a } = await setup("pglite");
    const env = { TEAMMEM_TOKEN: await server.token("carol", "default", "member", 1) };
    await writeFile(join(a, "team", "note.md"), "v1\n");
    await sleep(2_100);
    await expectRefused(a, env, "token_expired");
  });
});
