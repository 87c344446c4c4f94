/**
 * The model-based test of sync (issue 8, "Proof"): a few clients, each with its own memory
 * folder, on one real server and database, driven by a random list of actions, then brought to
 * quiescence and checked:
 * 1. every client's team tree equals the server's heads (files still holding conflict markers
 *    excepted: they are not sent until someone settles them, and the markers are checked by 2);
 * 2. every acknowledged line (in a team file when a sync of that client ended with nothing pending
 *    and no error) is in a head, in history (any version, any conflict record) or in a working file;
 * 3. no private marker (written outside team/) is in any table of the database.
 *
 * Clients sync in-process through `syncFolder`. "Offline" points a client at a server that is not
 * there; a "crash" aborts a sync between outbox steps (the batch is not sent, or sent and its
 * result never stored); a "kill" runs `teammem sync` (the built CLI) as a process and SIGKILLs it
 * after a random delay; "lose state" deletes `.teammem/` and inits again; a "mistake" writes a
 * private marker into team/ while offline, syncs (queued) and deletes the file before reconnecting;
 * "backup" copies the server's database and "restore-backup" serves a copy of the last backup
 * (new epoch), after which acknowledged lines that only the lost history held no longer count.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { mkdir, readFile, readdir, rename, rm, utimes, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { createApi, layoutOf, NetworkError, syncFolder, type Api, type SyncSummary } from "@teammem/client";
import { dumpAllRows, rowsOf } from "@teammem/server/testing";
import { teammem, tempDir } from "../support/cli.js";
import { startRestorableServer, type RestorableServer } from "../support/restorable.js";

export const CLIENTS = 3;
/** Team files the actions touch (a subfolder included, so renames move across folders). */
const FILES = ["MEMORY.md", "build.md", "docs/api.md", "docs/style.md"] as const;
const NAMESPACE = "acme/model";
/** The built `teammem` (`npm test` builds first), run as a process for the "kill" action. */
const CLIENT_CLI = fileURLToPath(new URL("../../apps/client/dist/cli.js", import.meta.url));

export type Action =
  | { readonly kind: "write"; readonly client: number; readonly file: number; readonly append: boolean }
  | { readonly kind: "delete"; readonly client: number; readonly file: number }
  | { readonly kind: "rename"; readonly client: number; readonly file: number; readonly to: number }
  | { readonly kind: "private"; readonly client: number }
  | { readonly kind: "sync"; readonly client: number }
  | { readonly kind: "offline"; readonly client: number }
  | { readonly kind: "crash"; readonly client: number; readonly afterSend: boolean }
  | { readonly kind: "kill"; readonly client: number; readonly afterMs: number }
  | { readonly kind: "lose-state"; readonly client: number }
  | { readonly kind: "mistake"; readonly client: number }
  | { readonly kind: "restart-server" }
  | { readonly kind: "backup" }
  | { readonly kind: "restore-backup" };

const client = fc.integer({ min: 0, max: CLIENTS - 1 });
const file = fc.integer({ min: 0, max: FILES.length - 1 });

/** Random actions, syncs weighted up so changes travel. */
export const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("write" as const), client, file, append: fc.boolean() }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant("delete" as const), client, file }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("rename" as const), client, file, to: file }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("private" as const), client }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("sync" as const), client }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant("offline" as const), client }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("crash" as const), client, afterSend: fc.boolean() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("kill" as const), client, afterMs: fc.integer({ min: 150, max: 1500 }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("lose-state" as const), client }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("mistake" as const), client }), weight: 1 },
  { arbitrary: fc.constant({ kind: "restart-server" as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: "backup" as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: "restore-backup" as const }), weight: 1 },
);

interface Client {
  readonly dir: string;
  readonly token: string;
  offline: boolean;
}

interface World {
  readonly server: RestorableServer;
  /** The last backup taken (`backup` action), restored by `restore-backup`. */
  backup: Awaited<ReturnType<RestorableServer["backup"]>> | undefined;
  readonly clients: Client[];
  /** Unique line tokens acknowledged by the server (see the module comment). */
  readonly acknowledged: Set<string>;
  readonly privateMarkers: string[];
  seq: number;
}

const MARKER_LINE = /^(<{7}|\|{7}|>{7})( |$)/m;

/** Team files of `dir`: entry path → content. */
async function teamTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const team = join(dir, "team");
  const walk = async (d: string) => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      // A write cut short by a kill may leave its temporary file; the walker never syncs reserved names.
      else if (e.isFile() && !e.name.startsWith(".teammem-tmp-")) out.set(relative(team, p).split("\\").join("/"), await readFile(p, "utf8"));
    }
  };
  await walk(team);
  return out;
}

const tokensIn = (text: string) => text.match(/tok-[0-9a-z]+-\d+/g) ?? [];

async function exists(path: string): Promise<boolean> {
  return readFile(path).then(
    () => true,
    () => false,
  );
}

/** A client's api: the real server, or (offline) a port nothing listens on; no retries, so failures are quick. */
function apiOf(world: World, c: Client): Api {
  const server = c.offline ? "http://127.0.0.1:9" : world.server.url;
  return createApi({ server, namespace: NAMESPACE, token: c.token, retry: { limit: 0 }, timeoutMs: 10_000 });
}

async function syncOnce(world: World, c: Client, api: Api): Promise<SyncSummary> {
  const before = await teamTree(c.dir);
  const summary = await syncFolder(layoutOf(c.dir), { token: c.token, api, batchSize: 3, pullPageSize: 5, allowMassDelete: true });
  if (!summary.error && summary.pending === 0) {
    const rejected = new Set(summary.pushed.rejected);
    for (const [path, content] of before) {
      if (MARKER_LINE.test(content) || rejected.has(`team/${path}`)) continue;
      for (const t of tokensIn(content)) world.acknowledged.add(t);
    }
  }
  return summary;
}

async function init(world: World, c: Client): Promise<void> {
  const r = await teammem(["init", "--dir", c.dir, "--server", world.server.url, "--namespace", NAMESPACE], { TEAMMEM_TOKEN: c.token });
  if (r.code !== 0) throw new Error(`init failed: ${r.stderr}`);
}

async function apply(world: World, action: Action, runId: string): Promise<void> {
  const c = "client" in action ? world.clients[action.client]! : undefined;
  switch (action.kind) {
    case "write": {
      const path = join(c!.dir, "team", FILES[action.file]!);
      const line = `- note tok-${runId}-${world.seq++} from client ${action.client}\n`;
      await mkdir(dirname(path), { recursive: true });
      const old = action.append ? await readFile(path, "utf8").catch(() => "") : "";
      await writeFile(path, old + line);
      return;
    }
    case "delete":
      await rm(join(c!.dir, "team", FILES[action.file]!), { force: true });
      return;
    case "rename": {
      const from = join(c!.dir, "team", FILES[action.file]!);
      const to = join(c!.dir, "team", FILES[action.to]!);
      if (action.file === action.to || !(await exists(from)) || (await exists(to))) return;
      await mkdir(dirname(to), { recursive: true });
      await rename(from, to);
      return;
    }
    case "private": {
      const marker = `PRIVATE-${randomUUID()}`;
      world.privateMarkers.push(marker);
      await mkdir(join(c!.dir, "notes"), { recursive: true });
      await writeFile(join(c!.dir, "notes", `p${world.seq++}.md`), `${marker}\n`);
      await writeFile(join(c!.dir, "MEMORY.md"), `# private index ${marker}\n`);
      return;
    }
    case "sync":
      await syncOnce(world, c!, apiOf(world, c!));
      return;
    case "offline":
      c!.offline = !c!.offline;
      return;
    case "crash": {
      const real = apiOf(world, c!);
      const url = world.server.url;
      await syncOnce(world, c!, {
        ...real,
        batch: async (request) => {
          if (action.afterSend) await real.batch(request);
          throw new NetworkError(url, action.afterSend ? "process killed after the batch was sent" : "process killed before the batch was sent");
        },
      });
      return;
    }
    case "kill": {
      // `teammem sync` as a real process (the built CLI), SIGKILLed at a random moment.
      const child = spawn(process.execPath, [CLIENT_CLI, "sync", "--dir", c!.dir], {
        env: { PATH: process.env["PATH"] ?? "", TEAMMEM_TOKEN: c!.token },
        stdio: "ignore",
      });
      const exited = once(child, "exit");
      await new Promise((resolve) => setTimeout(resolve, action.afterMs));
      child.kill("SIGKILL");
      await exited;
      // The killed command's lock would be taken over 30 s later; age it instead of waiting.
      const past = new Date(Date.now() - 60_000);
      await utimes(join(c!.dir, ".teammem", "command.lock"), past, past).catch(() => undefined);
      return;
    }
    case "lose-state":
      await rm(join(c!.dir, ".teammem"), { recursive: true, force: true });
      await init(world, c!);
      return;
    case "mistake": {
      // A private note written into team/ by mistake while offline, queued, and deleted before reconnecting.
      const marker = `PRIVATE-${randomUUID()}`;
      world.privateMarkers.push(marker);
      const path = join(c!.dir, "team", `oops-${world.seq++}.md`);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, `${marker}\n`);
      const wasOffline = c!.offline;
      c!.offline = true;
      await syncOnce(world, c!, apiOf(world, c!));
      c!.offline = wasOffline;
      await rm(path);
      return;
    }
    case "restart-server":
      await world.server.stop();
      await world.server.start();
      return;
    case "backup":
      world.backup = await world.server.backup();
      return;
    case "restore-backup": {
      if (!world.backup) return;
      await world.server.restore(world.backup);
      // History after the backup is gone with the server; what still counts as acknowledged is
      // what a client's working file or the restored database holds (reconciliation re-uploads the former).
      const alive = new Set([...(await historyTexts(world)), ...(await Promise.all(world.clients.map((k) => teamTree(k.dir)))).flatMap((t) => [...t.values()])].flatMap(tokensIn));
      for (const t of [...world.acknowledged]) if (!alive.has(t)) world.acknowledged.delete(t);
      return;
    }
  }
}

/** Syncs every client in turn until a whole round changes nothing. @throws when that takes more than `maxRounds`. */
async function quiesce(world: World, maxRounds = 8): Promise<void> {
  for (const c of world.clients) c.offline = false;
  for (let round = 0; round < maxRounds; round++) {
    let busy = false;
    for (const c of world.clients) {
      const s = await syncOnce(world, c, apiOf(world, c));
      if (s.error) throw new Error(`sync failed at quiescence: ${s.error.message}`);
      const pushed = s.pushed.applied.length + s.pushed.merged.length + s.pushed.conflicts.length;
      if (s.pulled.changes > 0 || pushed > 0 || s.pending > 0) busy = true;
    }
    if (!busy) return;
  }
  throw new Error(`no quiescence after ${maxRounds} rounds of syncs`);
}

/** Every content the server's history holds: all versions and conflict records. */
async function historyTexts(world: World): Promise<string[]> {
  const rows = await rowsOf<{ content: string | null }>(world.server.database(), sql`SELECT content FROM versions UNION ALL SELECT content FROM conflicts`);
  return rows.map((r) => r.content ?? "");
}

/** The invariants of the module comment; throws naming the first broken one. */
async function check(world: World): Promise<void> {
  const db = world.server.database();
  const heads = new Map(
    (await rowsOf<{ path: string; content: string | null; deleted: boolean }>(db, sql`SELECT path, content, deleted FROM entries`))
      .filter((r) => !r.deleted)
      .map((r) => [r.path, r.content ?? ""]),
  );
  const trees = await Promise.all(world.clients.map((c) => teamTree(c.dir)));
  trees.forEach((tree, i) => {
    const withMarkers = new Set([...tree].filter(([, content]) => MARKER_LINE.test(content)).map(([p]) => p));
    const local = [...tree].filter(([p]) => !withMarkers.has(p)).sort();
    const server = [...heads].filter(([p]) => !withMarkers.has(p)).sort();
    if (JSON.stringify(local) !== JSON.stringify(server))
      throw new Error(`client ${i}'s team tree differs from the server's heads:\n local ${JSON.stringify(local)}\n server ${JSON.stringify(server)}`);
  });
  const history = await historyTexts(world);
  const everywhere = new Set([...history, ...trees.flatMap((t) => [...t.values()])].flatMap(tokensIn));
  const lost = [...world.acknowledged].filter((t) => !everywhere.has(t));
  if (lost.length > 0) throw new Error(`acknowledged lines lost (in no head, history, conflict record or working file): ${lost.join(", ")}`);
  const dump = await dumpAllRows(db);
  const leaked = world.privateMarkers.filter((m) => dump.includes(m));
  if (leaked.length > 0) throw new Error(`private markers reached the database: ${leaked.join(", ")}`);
}

/**
 * Runs `actions` on a fresh server (PostgreSQL) with {@link CLIENTS} fresh clients, then quiesces
 * and checks. @throws describing the broken invariant.
 */
export async function runModel(actions: readonly Action[]): Promise<void> {
  const server = await startRestorableServer("postgres");
  const root = await tempDir("teammem-model-");
  const runId = randomUUID().slice(0, 8).toLowerCase().replace(/[^0-9a-z]/g, "x");
  try {
    const clients: Client[] = [];
    for (let i = 0; i < CLIENTS; i++) clients.push({ dir: join(root.path, `c${i}`), token: await server.token(`user${i}`), offline: false });
    const world: World = { server, backup: undefined, clients, acknowledged: new Set(), privateMarkers: [], seq: 0 };
    for (const c of clients) await init(world, c);
    for (const action of actions) await apply(world, action, runId);
    await quiesce(world);
    await check(world);
  } finally {
    await root.remove();
    await server.dispose();
  }
}
