/**
 * Redirects are never followed (try16 F8: a 307 to another origin received a push's batch, team
 * file contents, and the command said only "answered 404"): a 3xx reply is `server_redirect`
 * naming where it pointed, nothing reaches that place, and the edit stays queued. Real node:http
 * servers: the one configured, and a second one on another port (another origin) that records
 * every request it gets.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { RedirectError } from "../errors.js";
import { run } from "../program.js";
import { createApi } from "./api.js";

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(answer: Answer): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => void (body += chunk.toString("utf8")));
    req.on("end", () => {
      requests.push(`${req.method} ${req.url} ${body}`);
      answer(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  onTestFinished(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** A server answering every request with `status` and a Location to `to` (the try-out's evil server: 307 to /stolen). */
const redirecting =
  (status: number, to: string): Answer =>
  (_req, res) =>
    res.writeHead(status, { location: to, "content-type": "text/plain" }).end("moved");

async function teammem(argv: string[]) {
  const out = { code: 0, stdout: "", stderr: "" };
  out.code = await run(argv, {}, { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t) }, tmpdir());
  return out;
}

const BATCH = { clientId: "c1", operations: [{ opId: "00000000-0000-4000-8000-0000000000aa", kind: "put", path: "a.md", baseVersion: 0, content: "team note\n" }] };

describe("the client never follows a redirect", () => {
  it.each([301, 302, 303, 307, 308])("a POST answered %i to another origin: server_redirect naming it, nothing sent there", async (status) => {
    const other = await serve((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
    const { url, requests } = await serve(redirecting(status, `${other.url}/stolen`));
    const err = await createApi({ server: url, namespace: "ns", token: "t" })
      .batch(BATCH as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedirectError);
    expect(err).toMatchObject({ code: "server_redirect", status, target: other.url });
    expect((err as Error).message).toBe(
      `server ${url} answered with a redirect (HTTP ${status}) to ${other.url}; teammem never follows one, nothing was sent there: ` +
        "check --server / the configured server URL (.teammem/config.json; teammem init --server URL --moved to change it)",
    );
    expect(other.requests).toEqual([]);
    expect(requests).toHaveLength(1); // not retried
  });

  it("a redirect within the server's origin names the path it points to", async () => {
    const { url } = await serve(redirecting(308, "/teammem/v1/server"));
    await expect(createApi({ server: url, namespace: "ns", token: "t" }).serverInfo()).rejects.toMatchObject({
      code: "server_redirect",
      target: "/teammem/v1/server",
    });
  });

  it.each([["init"], ["init --moved"]])("%s against a redirecting server exits 1 with server_redirect, sets nothing up, asks nothing elsewhere (try17 M1)", async (how) => {
    const other = await serve((_req, res) => res.writeHead(401, { "content-type": "application/json" }).end('{"code":"unauthorized","message":"no token"}'));
    const { url, requests } = await serve(redirecting(302, `${other.url}/elsewhere`));
    const dir = await mkdtemp(join(tmpdir(), "teammem-redirect-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const init = ["init", "--dir", dir, "--namespace", "acme", "--token", "some-token"];
    if (how === "init --moved") {
      const first = await serve((_req, res) => res.writeHead(401, { "content-type": "application/json" }).end('{"code":"unauthorized","message":"no token"}'));
      expect((await teammem([...init, "--server", first.url, "--offline"])).code).toBe(0);
    }
    const r = await teammem([...init, "--server", url, ...(how === "init --moved" ? ["--moved"] : [])]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`teammem: server ${url} answered with a redirect (HTTP 302) to ${other.url}; teammem never follows one`);
    expect(r.stderr).toMatch(/ \[server_redirect\]\n$/);
    expect(requests).toEqual(["GET /v1/team/whoami "]);
    expect(other.requests).toEqual([]);
    if (how === "init") expect(existsSync(join(dir, ".teammem"))).toBe(false);
    else expect(JSON.parse(await readFile(join(dir, ".teammem", "config.json"), "utf8")).server).not.toBe(url);
  });

  it("push and sync against a redirecting server exit 1 with server_redirect, send nothing elsewhere, keep the edit queued", async () => {
    const other = await serve((_req, res) => res.writeHead(404).end());
    const { url } = await serve(redirecting(307, `${other.url}/stolen`));
    const dir = await mkdtemp(join(tmpdir(), "teammem-redirect-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    expect((await teammem(["init", "--dir", dir, "--server", url, "--offline", "--namespace", "acme", "--token", "some-token"])).code).toBe(0);
    await writeFile(join(dir, "team", "a.md"), "a team note\n");
    for (const argv of [["push", "team/a.md"], ["sync"]]) {
      const r = await teammem([...argv, "--dir", dir]);
      expect({ argv, code: r.code }).toEqual({ argv, code: 1 });
      expect(r.stderr).toContain(`teammem: server ${url} answered with a redirect (HTTP 307) to ${other.url}; teammem never follows one`);
      expect(r.stderr).toMatch(/ \[server_redirect\]\n$/);
      const status = await teammem(["status", "--dir", dir, "--json", "--offline"]);
      expect(JSON.parse(status.stdout).pending).toEqual([expect.objectContaining({ path: "team/a.md", kind: "put" })]);
    }
    const json = await teammem(["sync", "--dir", dir, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: "server_redirect" }, pending: 1 });
    expect(other.requests).toEqual([]);
  }, 60_000);
});
