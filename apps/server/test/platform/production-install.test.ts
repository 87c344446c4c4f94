/**
 * What the Docker image runs, without Docker (issue 12): the runtime stage's production install of
 * the server workspace into a fresh folder (`npm ci --omit=dev -w @teammem/server`, from npm's
 * cache when it has the packages), the compiled output and migrations copied beside it, `start`
 * as the image's entrypoint runs it, `/readyz` ready, SIGTERM exits 0. Needs `npx tsc -b` first.
 */
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const WORKSPACES = ["packages/protocol", "packages/scanner", "apps/server", "apps/client", "test"];
const BUILT = ["packages/protocol", "packages/scanner", "apps/server"];

describe("production install of the server, as the image runs it", () => {
  const dir = mkdtempSync(join(tmpdir(), "teammem-prod-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("installs only production dependencies, starts from the compiled output, migrates and is ready", async () => {
    for (const f of ["package.json", "package-lock.json"]) cpSync(join(ROOT, f), join(dir, f));
    for (const w of WORKSPACES) {
      mkdirSync(join(dir, w), { recursive: true });
      cpSync(join(ROOT, w, "package.json"), join(dir, w, "package.json"));
    }
    cpSync(join(ROOT, "apps/server/bin"), join(dir, "apps/server/bin"), { recursive: true });
    execFileSync("npm", ["ci", "--omit=dev", "-w", "@teammem/server", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: dir, stdio: "pipe", timeout: 180_000 });
    for (const w of BUILT) cpSync(join(ROOT, w, "dist"), join(dir, w, "dist"), { recursive: true });
    cpSync(join(ROOT, "migrations"), join(dir, "migrations"), { recursive: true });
    // The admin console's files, as the Dockerfile copies them.
    for (const f of ["index.html", "console.css", "favicon.svg", "dist"]) {
      cpSync(join(ROOT, "apps/server/console", f), join(dir, "apps/server/console", f), { recursive: true });
    }
    // Production only: no test runner, no client watcher, no drizzle-kit.
    expect(["vitest", "chokidar", "drizzle-kit", "prom-client", "fastify"].map((p) => [p, existsSync(join(dir, "node_modules", p))])).toEqual([
      ["vitest", false],
      ["chokidar", false],
      ["drizzle-kit", false],
      ["prom-client", true],
      ["fastify", true],
    ]);

    const env = { PATH: process.env["PATH"] ?? "", NODE_ENV: "production", TEAMMEM_DATA_DIR: join(dir, "data"), HOST: "127.0.0.1", LOG_LEVEL: "warn" };
    const child = spawn(process.execPath, [join(dir, "apps/server/dist/cli.js"), "start", "--port", "0"], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    let out = "";
    let err = "";
    child.stderr!.on("data", (b) => (err += b));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.on("data", (b) => {
          out += b;
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        void exited.then((code) => reject(new Error(`exited ${code}\n${out}${err}`)));
      });
      const ready = await fetch(`${url}/readyz`);
      expect({ status: ready.status, body: await ready.json() }).toEqual({
        status: 200,
        body: { ready: true, checks: { database: "ok", migrations: "ok", shutdown: "ok", listen: "ok" } },
      });
      expect(await (await fetch(`${url}/metrics`)).text()).toContain("teammem_http_requests_total");
      const consoleFiles = await Promise.all(["/admin", "/admin/console.css", "/admin/js/main.js"].map(async (p) => [p, (await fetch(`${url}${p}`)).status]));
      expect(consoleFiles).toEqual([
        ["/admin", 200],
        ["/admin/console.css", 200],
        ["/admin/js/main.js", 200],
      ]);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  }, 240_000); // the production `npm ci` alone may take its whole 180 s budget on a loaded machine
});
