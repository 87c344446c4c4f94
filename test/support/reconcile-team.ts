/** A team of two clients on a {@link RestorableServer}, and what reconciliation tests check: heads, files, convergence. */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { expect, onTestFinished } from "vitest";
import { rowsOf, type DatabaseKind } from "@teammem/server/testing";
import { teammem, tempDir } from "./cli.js";
import { syncJson, tree } from "./clients.js";
import { startRestorableServer, type RestorableServer } from "./restorable.js";

export interface Team {
  server: RestorableServer;
  root: string;
  a: string;
  b: string;
  env: { a: Record<string, string>; b: Record<string, string> };
}

export async function team(kind: DatabaseKind): Promise<Team> {
  const server = await startRestorableServer(kind);
  onTestFinished(() => server.dispose());
  const root = await tempDir();
  onTestFinished(() => root.remove());
  const [a, b] = [join(root.path, "a"), join(root.path, "b")];
  const env = { a: { TEAMMEM_TOKEN: await server.token("alice") }, b: { TEAMMEM_TOKEN: await server.token("bob") } };
  for (const [dir, e] of [
    [a, env.a],
    [b, env.b],
  ] as const)
    expect(await teammem(["init", "--dir", dir, "--server", server.url, "--namespace", "acme-web"], e)).toMatchObject({ code: 0 });
  return { server, root: root.path, a, b, env };
}

/** Every head of the namespace on the server: path → content (tombstones left out). */
export async function heads(server: RestorableServer): Promise<Record<string, string>> {
  const rows = await rowsOf<{ path: string; content: string | null; deleted: boolean }>(
    server.database(),
    sql`SELECT DISTINCT ON (path) path, content, kind = 'delete' AS deleted FROM versions ORDER BY path, version DESC`,
  );
  return Object.fromEntries(rows.filter((r) => !r.deleted).map((r) => [`team/${r.path}`, r.content!]));
}

/** The team files of `dir`: path → content. */
export async function files(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of await tree(dir)) if (path.startsWith("team/")) out[path] = await readFile(join(dir, path), "utf8");
  return out;
}

export const write = (dir: string, path: string, text: string) => writeFile(join(dir, "team", path), text);
export const reconciledEvents = (json: { events: { type: string }[] }) => json.events.filter((e) => e.type === "reconciled");

/** A syncs, then B, then A again; both end equal to the server's heads. */
export async function converge(t: Team): Promise<Record<string, string>> {
  for (const [dir, e] of [
    [t.a, t.env.a],
    [t.b, t.env.b],
    [t.a, t.env.a],
  ] as const)
    expect((await syncJson(dir, e)).code).toBe(0);
  const server = await heads(t.server);
  expect(await files(t.a)).toEqual(server);
  expect(await files(t.b)).toEqual(server);
  return server;
}

