/** Two initialised clients of a fresh test server, and shorthands to drive them through the CLI. */
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { expect, onTestFinished } from "vitest";
import type { DatabaseKind } from "@teammem/server/testing";
import { teammem, tempDir } from "./cli.js";
import { startTestServer, type TestServer } from "./server.js";

/** Every file under `dir` (relative, `/`-separated), the state folder left out. */
export async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.name === ".teammem") continue;
      if (e.isDirectory()) await walk(p);
      else out.push(relative(dir, p).split("\\").join("/"));
    }
  };
  await walk(dir);
  return out.sort();
}

export interface Clients {
  server: TestServer;
  a: string;
  b: string;
  envA: Record<string, string>;
  envB: Record<string, string>;
}

/** A server and two initialised clients (A takes its token from the env, B stores it with init --token). */
export async function setup(kind: DatabaseKind, limits?: Parameters<typeof startTestServer>[1]): Promise<Clients> {
  const server = await startTestServer(kind, limits);
  onTestFinished(() => server.dispose());
  const root = await tempDir();
  onTestFinished(() => root.remove());
  const [a, b] = [join(root.path, "a"), join(root.path, "b")];
  const envA = { TEAMMEM_TOKEN: await server.token("alice") };
  const tokenB = await server.token("bob");
  expect(await teammem(["init", "--dir", a, "--server", server.url, "--namespace", "acme-web"], envA)).toMatchObject({ code: 0 });
  expect(await teammem(["init", "--dir", b, "--server", server.url, "--namespace", "acme-web", "--token", tokenB])).toMatchObject({ code: 0 });
  return { server, a, b, envA, envB: {} };
}

/** A third (fourth...) teammate: `user`'s folder beside A's, initialised on the same namespace, and its env. */
export async function addClient(clients: Clients, user: string): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = join(clients.a, "..", user);
  const env = { TEAMMEM_TOKEN: await clients.server.token(user) };
  expect(await teammem(["init", "--dir", dir, "--server", clients.server.url, "--namespace", "acme-web"], env)).toMatchObject({ code: 0 });
  return { dir, env };
}

export const sync = (dir: string, env: Record<string, string>) => teammem(["sync", "--dir", dir], env);
/** `teammem sync --json`, parsed (with the exit code and stderr). */
export const syncJson = async (dir: string, env: Record<string, string>) => {
  const r = await teammem(["sync", "--dir", dir, "--json"], env);
  return { code: r.code, stderr: r.stderr, json: JSON.parse(r.stdout) };
};
export const status = async (dir: string) => JSON.parse((await teammem(["status", "--dir", dir, "--json"])).stdout);

