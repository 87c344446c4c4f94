/** `teammem init` checks the token with the server before it writes anything. */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { DATABASE_KINDS } from "@teammem/server/testing";
import { teammem, tempDir } from "../support/cli.js";
import { startTestServer } from "../support/server.js";

async function fixture(kind: (typeof DATABASE_KINDS)[number]) {
  const server = await startTestServer(kind);
  onTestFinished(() => server.dispose());
  const root = await tempDir();
  onTestFinished(() => root.remove());
  return { server, root: root.path };
}

describe.each(DATABASE_KINDS)("teammem init against a server on %s", (kind) => {
  it("creates nothing when the server refuses the token, and keeps a stored token when a re-init's new one is refused", async () => {
    const { server, root } = await fixture(kind);
    const dir = join(root, "a");
    const bad = await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", "acme", "--token", "not-a-token"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(/answered 401 unauthorized: .*; nothing was set up \(check the token and --server\)/);
    expect(bad.stderr).not.toContain("not-a-token");
    expect(existsSync(dir)).toBe(false);

    const good = await server.token("alice");
    const ok = await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", "acme", "--token", good]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("initialised");
    expect(ok.stdout).toContain("namespace acme ready on the server");
    const again = await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", "acme", "--token", "not-a-token"]);
    expect(again.code).toBe(1);
    expect(JSON.parse(await readFile(join(dir, ".teammem", "config.json"), "utf8")).token).toBe(good);
  });

  it("lets a reader set up a folder for an existing namespace, and creates nothing when the namespace does not exist", async () => {
    const { server, root } = await fixture(kind);
    const reader = await server.token("rita", "default", "reader");
    const missing = await teammem(["init", "--dir", join(root, "r1"), "--server", server.url, "--namespace", "acme", "--token", reader]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("namespace acme does not exist");
    expect(missing.stderr).toContain("this token may not create it (read-only)");
    expect(existsSync(join(root, "r1"))).toBe(false);

    const member = await server.token("alice");
    expect((await teammem(["init", "--dir", join(root, "m"), "--server", server.url, "--namespace", "acme", "--token", member])).code).toBe(0);
    const ok = await teammem(["init", "--dir", join(root, "r2"), "--server", server.url, "--namespace", "acme", "--token", reader]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("initialised");
    expect(ok.stdout).toContain("read-only token");
    expect((await teammem(["sync", "--dir", join(root, "r2")])).code).toBe(0);
  });

  it("sets up offline when the server cannot be reached, saying the token was stored unchecked", async () => {
    const { server, root } = await fixture(kind);
    await server.stop();
    const r = await teammem(["init", "--dir", join(root, "o"), "--server", server.url, "--namespace", "acme", "--token", "some-token"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`cannot reach server ${server.url}`);
    expect(r.stdout).toContain("server not reached; the token was stored without being checked");
  });
});
