/**
 * The admin console's static files (plugins/console.ts): served without a token, each with the strict
 * Content-Security-Policy; only the listed files and compiled modules, nothing else of the folder.
 * (The console itself, in a browser, is test/console/console.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.js";
import { CONSOLE_HEADERS } from "../../src/plugins/console.js";
import { createTestDatabase, type TestDatabase } from "../../src/testing.js";


describe("admin console static files", () => {
  let tdb: TestDatabase;
  let app: FastifyInstance;
  beforeAll(async () => {
    tdb = await createTestDatabase("pglite");
    app = await buildApp({ db: tdb.database.db, jwtSecret: "s".repeat(32) });
  });
  afterAll(async () => {
    await app?.close();
    await tdb?.dispose();
  });

  it("serves the page at /admin and /admin/ with the console's headers and no inline script", async () => {
    for (const url of ["/admin", "/admin/"]) {
      const res = await app.inject({ url });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(res.headers["content-security-policy"]).toBe(CONSOLE_HEADERS["content-security-policy"]);
      expect(res.headers).toMatchObject({ "x-content-type-options": "nosniff", "referrer-policy": "no-referrer", "cache-control": "no-store" });
      // Every <script> has a src on this origin; none carries code of its own, no style attribute.
      const scripts = [...res.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.map((m) => [/src="\/admin\/js\/[a-z-]+\.js"/.test(m[1]!), m[2]!.trim()])).toEqual([[true, ""]]);
      expect(res.body).not.toMatch(/\sstyle=|\son[a-z]+=|https?:\/\//);
    }
    expect(CONSOLE_HEADERS["content-security-policy"]).toMatch(/default-src 'none'.*script-src 'self'.*frame-ancestors 'none'/);
    expect(CONSOLE_HEADERS["content-security-policy"]).not.toContain("unsafe");
  });

  it("serves the stylesheet and icon", async () => {
    const css = await app.inject({ url: "/admin/console.css" });
    expect([css.statusCode, css.headers["content-type"]]).toEqual([200, "text/css; charset=utf-8"]);
    expect(css.headers["content-security-policy"]).toBeDefined();
    expect((await app.inject({ url: "/admin/favicon.svg" })).statusCode).toBe(200);
  });

  it("serves the compiled modules as JavaScript (built by tsc -b)", async () => {
    const res = await app.inject({ url: "/admin/js/main.js" });
    expect([res.statusCode, res.headers["content-type"]]).toEqual([200, "text/javascript; charset=utf-8"]);
    expect(res.body).toContain("/v1/team/whoami");
  });

  it("answers 404 not_found for anything else: sources, declarations, other folders, traversal", async () => {
    for (const url of [
      "/admin/js/main.ts",
      "/admin/js/main.d.ts",
      "/admin/js/.tsbuildinfo",
      "/admin/js/..%2Fsrc%2Fmain.ts",
      "/admin/js/..%2F..%2Fpackage.json",
      "/admin/js/nope.js",
      "/admin/tsconfig.json",
      "/admin/src/main.ts",
      "/admin/index.html",
    ]) {
      const res = await app.inject({ url });
      expect({ url, status: res.statusCode, code: res.json().code }).toEqual({ url, status: 404, code: "not_found" });
    }
  });
});
