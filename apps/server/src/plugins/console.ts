/**
 * The admin console at /admin: a static page, its stylesheet and its compiled browser modules
 * (apps/server/console: index.html, console.css, favicon.svg, dist/*.js built by `tsc -b`), served from this
 * package so it works on a network without internet access. The console is a client of the JSON
 * admin API: these routes need no token (the page asks for one and keeps it in memory).
 *
 * Every reply carries a strict Content-Security-Policy (scripts, styles and fetches from this
 * origin only, no inline script or style, no framing, no form posts), `nosniff`, `no-referrer`
 * and `no-store`. Unknown files answer 404 `not_found`; a missing build answers 404 too.
 */
import { readFile } from "node:fs/promises";
import type { FastifyInstance, FastifyReply } from "fastify";
import fp from "fastify-plugin";
import { z } from "zod";
import { Refusal } from "../errors/refusal.js";

/** The console's folder (from src/plugins and dist/plugins alike). */
const CONSOLE_DIR = new URL("../../console/", import.meta.url);

/** What every console reply carries. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

const ModuleParams = z.strictObject({ file: z.string().regex(/^[a-z][a-z0-9-]*\.js$/, "a console module name") });

async function sendFile(reply: FastifyReply, relative: string, type: string): Promise<FastifyReply> {
  let body: Buffer;
  try {
    body = await readFile(new URL(relative, CONSOLE_DIR));
  } catch {
    throw new Refusal("not_found", "no such console file (built with tsc -b?)");
  }
  return reply.headers(CONSOLE_HEADERS).type(type).send(body);
}

async function adminConsole(app: FastifyInstance): Promise<void> {
  const page = { schema: { hide: true } };
  app.get("/admin", page, (_request, reply) => sendFile(reply, "index.html", "text/html; charset=utf-8"));
  app.get("/admin/", page, (_request, reply) => sendFile(reply, "index.html", "text/html; charset=utf-8"));
  app.get("/admin/console.css", page, (_request, reply) => sendFile(reply, "console.css", "text/css; charset=utf-8"));
  app.get("/admin/favicon.svg", page, (_request, reply) => sendFile(reply, "favicon.svg", "image/svg+xml"));
  app.get("/admin/js/:file", page, (request, reply) => {
    const parsed = ModuleParams.safeParse(request.params);
    if (!parsed.success) throw new Refusal("not_found", "no such console file");
    return sendFile(reply, `dist/${parsed.data.file}`, "text/javascript; charset=utf-8");
  });
}

export default fp(adminConsole, { name: "teammem-admin-console" });
