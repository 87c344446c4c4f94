/** `teammem init` reaches the server and checks the token before it writes anything. */
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { readFile, writeFile } from "node:fs/promises";
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
    expect(ok.stdout).toContain("namespace acme created on the server (new, no entries yet)");
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

  it("refuses a namespace differing from the team's only by case or .git, naming it, and says created vs found with the entry count (try20 F5)", async () => {
    const { server, root } = await fixture(kind);
    const token = await server.token("alice");
    const a = join(root, "a");
    const first = await teammem(["init", "--dir", a, "--server", server.url, "--namespace", "acme/web", "--token", token]);
    expect([first.code, first.stderr]).toEqual([0, ""]);
    expect(first.stdout).toContain("namespace acme/web created on the server (new, no entries yet)");
    await writeFile(join(a, "team", "build.md"), "make check\n");
    expect((await teammem(["sync", "--dir", a])).code).toBe(0);
    for (const typed of ["ACME/Web", "acme/web.git"]) {
      const dir = join(root, typed.replaceAll("/", "_"));
      const twin = await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", typed, "--token", token]);
      expect([twin.code, twin.stdout]).toEqual([1, ""]);
      expect(twin.stderr).toContain(
        `namespace acme/web exists on the server; did you mean it? ${typed} differs from it only by letter case or a trailing .git, ` +
          "so it was not created (run: teammem init --namespace acme/web); nothing was set up",
      );
      expect(twin.stderr).toContain("namespace_name_conflict");
      expect(existsSync(dir)).toBe(false);
    }
    const b = await teammem(["init", "--dir", join(root, "b"), "--server", server.url, "--namespace", "acme/web", "--token", token]);
    expect([b.code, b.stderr]).toEqual([0, ""]);
    expect(b.stdout).toContain("namespace acme/web found on the server (1 entry)");
  });

  it("creates nothing when the server cannot be reached, naming the URL and the cause; --offline sets up without contacting it", async () => {
    const { server, root } = await fixture(kind);
    await server.stop();
    const port = new URL(server.url).port;
    const dir = join(root, "o");
    const r = await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", "acme", "--token", "some-token"]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `teammem: cannot reach server ${server.url}: connection refused: nothing listens on 127.0.0.1:${port}; is the server running, on that port? (ECONNREFUSED); ` +
        "nothing was set up (check --server and that the server runs, or pass --offline to set up without it) [network_error]\n",
    });
    expect(existsSync(dir)).toBe(false);
    const noToken = await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", "acme"]);
    expect([noToken.code, noToken.stderr]).toEqual([1, expect.stringContaining(`cannot reach server ${server.url}: connection refused`)]);
    expect(existsSync(dir)).toBe(false);

    const offline = await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", "acme", "--token", "some-token", "--offline"]);
    expect([offline.code, offline.stderr]).toEqual([0, ""]);
    expect(offline.stdout).toContain("set up offline (server not contacted); the token was stored without being checked; the first sync creates the namespace");
    expect(JSON.parse(await readFile(join(dir, ".teammem", "config.json"), "utf8"))).toMatchObject({ server: server.url, namespace: "acme", token: "some-token" });
  });

  it("checks that a teammem server answers even without a token, and sets up after it does", async () => {
    const { server, root } = await fixture(kind);
    const r = await teammem(["init", "--dir", join(root, "n"), "--server", server.url, "--namespace", "acme", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, reached: true, remote: "server reached; namespace will be created on the first sync (no token yet)" });
  });
});

describe("teammem init against something that is not a teammem server", () => {
  it("creates nothing and says the URL answered, but not as a teammem server", async () => {
    const other = createServer((_req, res) => res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>"));
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => other.close(() => resolve())));
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const root = await tempDir();
    onTestFinished(() => root.remove());
    const dir = join(root.path, "x");
    for (const extra of [[], ["--token", "some-token"]]) {
      const r = await teammem(["init", "--dir", dir, "--server", url, "--namespace", "acme", ...extra]);
      expect(r).toEqual({
        code: 1,
        stdout: "",
        stderr:
          `teammem: ${url} answered, but not as a teammem server (GET /v1/team/whoami: HTTP 404, text/html); ` +
          "nothing was set up (--server is the server's base URL, e.g. http://127.0.0.1:8080) [protocol_error]\n",
      });
      expect(existsSync(dir)).toBe(false);
    }
  });
});
