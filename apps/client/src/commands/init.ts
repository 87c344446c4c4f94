/**
 * `teammem init --server URL [--namespace NS] [--dir D | --agent claude-code|codex|folder] [--repo R] [--token T] [--offline]`:
 * sets up a memory folder: the state folder `.teammem/` (config with a new client id; the token
 * too when `--token` is given, mode 0600) and `team/`. The folder is `--dir`, or the one the agent
 * of `--agent` uses for the repository `--repo` (see agents/agent-folders.ts); the namespace is
 * `--namespace`, or the repository's path on its forge read from its remote (`acme/web`). Prints
 * what it chose. Before writing anything it reaches the server: a URL no server can be reached
 * at (a port fetch refuses) exits 2; a server that cannot be reached (connection refused, host not
 * found, no answer) or that answers but not as a teammem server exits 1, each naming the URL and
 * the cause, with nothing created. When a token is at hand, checks it too: creates the namespace
 * (or, for a read-only token, checks it exists); a refusal exits 1 with nothing created. Then
 * fetches the team's scan policy (its fingerprint key) into `.teammem/scan-policy.json`. With
 * `--offline` the server is not contacted: the folder is set up and the first sync checks the
 * token and creates the namespace.
 * A folder that is the `team/` scope of a set-up memory folder (or under it), or that lies inside
 * a set-up memory folder and is not set up itself, is refused first (exit 2, `dir_is_team_scope`,
 * `dir_in_memory_folder`; state/nested-folder.ts), nothing created.
 *
 * `teammem init --server URL --moved [--dir D | --agent A]`: the server of an already set-up folder
 * moved (new host, port or path; or its database moved to another server): only the server URL
 * changes. The namespace, client id, token, queued operations and sync state stay, so nothing
 * queued is lost; the new server is checked first like a new one (nothing changes when it cannot
 * be reached or refuses the token, unless `--offline`). The next sync compares the server's
 * identity and epoch with the ones this folder synced with: the same database carries on where it
 * was, another one (or a restored one) is reconciled by content (`sync/reconcile.ts`).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { checkNamespaceName, NAMESPACE_RULE, type NamespaceResponse } from "@teammem/protocol";
import { locateFolder, type LocatedFolder } from "../agents/locate-folder.js";
import { pickRemote, readRepo, type RepoInfo } from "../agents/git-repo.js";
import { displayRemoteUrl, namespaceFromRemote } from "../agents/remote-namespace.js";
import { describeNetworkError, ErrorBody, FETCH_BAD_PORTS } from "@teammem/protocol";
import { ClientError, namespaceNotFound, NetworkError, RedirectError, ServerError, UsageError } from "../errors.js";
import { createApi, FIRST_ANSWER_TIMEOUT_MS, noAnswerReason, redirectTarget } from "../http/api.js";
import { MAX_ERROR_REPLY_BYTES, readReplyText } from "../http/read-reply.js";
import { fsyncDir } from "../state/atomic.js";
import { loadConfig, saveConfig, type Config } from "../state/config.js";
import { layoutOf } from "../state/layout.js";
import { saveScanPolicy } from "../state/scan-policy.js";
import { loadSyncState, saveSyncState } from "../state/sync-state.js";
import { refuseNestedFolder } from "../state/nested-folder.js";
import { checkFolder, checkToken, findToken, nestingLabel, type CommandContext, type CommonCommand, type OptionsOf } from "./common.js";

export const name = "init";
export const summary = "set up a memory folder (or an agent's, for a repository) to sync its team/ scope with a server namespace";

function define(command: CommonCommand) {
  return command
    .requiredOption("--server <url>", "server base URL, e.g. http://127.0.0.1:8080")
    .option("--namespace <name>", "namespace (one per repository), e.g. acme/web; default: owner/repo from the repository's remote")
    .option("--remote <name>", "the git remote that names the namespace (default: origin, else the only remote)")
    .option("--offline", "set up without contacting the server (the first sync checks the token and creates the namespace)")
    .option("--moved", "the server of this already set-up folder moved to --server: point the folder there, keeping its namespace, queued edits and sync state")
    .option("--json", "print what was set up as JSON");
}

export function register(command: CommonCommand, ctx: CommandContext, exit: (code: number) => void): void {
  define(command).action(async (options) => exit(await run(options, ctx)));
}

/** Normalises `--server`: an http(s) URL without credentials, query or fragment; no trailing slash. */
function parseServerUrl(raw: string): string {
  const port = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(?:\[[^\]]*\]|[^:/?#]*):(\d+)(?:[/?#]|$)/i.exec(raw.trim())?.[1];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535))
    throw new UsageError(`--server port ${port} is out of range (1-65535)`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--server must be an http(s) URL such as http://127.0.0.1:8080 (got "${raw}")`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`--server must use http or https (got "${url.protocol}")`);
  if (url.username || url.password) throw new UsageError("--server must not contain a user name or password; use --token");
  if (url.search || url.hash) throw new UsageError("--server must not contain a query or fragment");
  if (url.port !== "" && FETCH_BAD_PORTS.has(Number(url.port)))
    throw new UsageError(`--server port ${url.port} is one fetch never connects to (a WHATWG "bad port", like 1, 9, 22 or 6000): no server can be reached there; use the port the server listens on`);
  return url.toString().replace(/\/+$/, "");
}

/** How long init waits for the server's first answer, in ms: as long as any command's first request (http/api.ts). */
const REACH_TIMEOUT_MS = FIRST_ANSWER_TIMEOUT_MS;

/**
 * Checks that a teammem server answers at `server` before anything is written: an unauthenticated
 * `GET /v1/team/whoami` must get the server's error contract (401 `unauthorized`, or any reply with
 * a teammem error body, e.g. 429 rate_limited).
 * @throws NetworkError when nothing answers (the reason names the cause: connection refused, host not found...).
 * @throws RedirectError (`server_redirect`) when it answers with a redirect: never followed.
 * @throws ClientError `protocol_error` when something answers, but not as a teammem server.
 */
async function checkIsTeammemServer(server: string): Promise<void> {
  let response: Response;
  try {
    // Never followed, as every request of the client (http/api.ts): init names the server to use.
    response = await fetch(`${server}/v1/team/whoami`, { headers: { accept: "application/json" }, redirect: "manual", signal: AbortSignal.timeout(REACH_TIMEOUT_MS) });
  } catch (err) {
    const timedOut = err instanceof DOMException && err.name === "TimeoutError";
    throw new NetworkError(server, timedOut ? noAnswerReason(REACH_TIMEOUT_MS) : describeNetworkError(err, server));
  }
  if (response.status >= 300 && response.status < 400) {
    void response.body?.cancel().catch(() => undefined);
    throw new RedirectError(server, response.status, redirectTarget(server, `${server}/v1/team/whoami`, response));
  }
  // Bounded: a server that never stops sending is not read to the end (an answer is a small error body).
  const text = await readReplyText(response, MAX_ERROR_REPLY_BYTES, performance.now() + REACH_TIMEOUT_MS, REACH_TIMEOUT_MS).catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (response.status >= 400 && ErrorBody.safeParse(body).success) return;
  const type = response.headers.get("content-type")?.split(";")[0] ?? "no content type";
  throw new ClientError(
    `${server} answered, but not as a teammem server (GET /v1/team/whoami: HTTP ${response.status}, ${type}); ` +
      "nothing was set up (--server is the server's base URL, e.g. http://127.0.0.1:8080)",
    1,
    "protocol_error",
  );
}

/**
 * Checks the token against the server before anything is written: creates the namespace (member
 * token), or, for a read-only token, checks that it exists and can be read.
 * @returns what to tell the user about the server side.
 * @throws ClientError (exit 1) when the server refuses the token or the namespace.
 * @throws NetworkError when the server cannot be reached.
 */
async function checkRemote(server: string, namespace: string, token: string): Promise<string> {
  const api = createApi({ server, namespace, token });
  const notSetUp = (err: ServerError) => {
    err.message += "; nothing was set up";
    return err;
  };
  try {
    const ns = await api.ensureNamespace();
    return namespaceLine(ns);
  } catch (err) {
    if (!(err instanceof ServerError)) throw err;
    if (err.code === "namespace_name_conflict") throw nameConflict(err, namespace);
    // The same words as a sync meeting the same 404 (errors.ts namespaceNotFound).
    if (err.code === "not_found") throw notSetUp(namespaceNotFound(err, namespace, false));
    if (err.code !== "forbidden") throw new ClientError(`${err.message}; nothing was set up (check the token and --server)`);
  }
  try {
    await api.changes(0, 1);
    return `namespace ${namespace} found on the server (read-only token: sync pulls the team's changes, local edits are not sent)`;
  } catch (err) {
    if (!(err instanceof ServerError)) throw err;
    if (err.code === "not_found") throw notSetUp(namespaceNotFound(err, namespace, true));
    throw new ClientError(`${err.message}; nothing was set up (check the token and --server)`);
  }
}

/**
 * Init's words for the namespace the server answered: created (new and empty, so a mistyped name
 * is noticed) or found with its live entry count; "ready" for a server that says neither.
 */
function namespaceLine(ns: NamespaceResponse): string {
  if (ns.created === true) return `namespace ${ns.name} created on the server (new, no entries yet)`;
  if (ns.created === false && ns.entries !== undefined)
    return `namespace ${ns.name} found on the server (${ns.entries} ${ns.entries === 1 ? "entry" : "entries"})`;
  return `namespace ${ns.name} ready on the server`;
}

/**
 * The server refused to create `namespace` because the team has it under another spelling
 * (`namespace_name_conflict`, `details.existing`): names the existing one and how to use it.
 */
function nameConflict(err: ServerError, namespace: string): ClientError {
  const raw = err.details?.["existing"];
  const existing = typeof raw === "string" && checkNamespaceName(raw).ok ? raw : null;
  if (existing === null) return new ClientError(`${err.message}; nothing was set up`, 1, "namespace_name_conflict");
  return new ClientError(
    `namespace ${existing} exists on the server; did you mean it? ${namespace} differs from it only by letter case or a trailing .git, ` +
      `so it was not created (run: teammem init --namespace ${existing}); nothing was set up`,
    1,
    "namespace_name_conflict",
  );
}

/** The namespace to use and how it was found: `--namespace`, else the repository's remote. */
async function chooseNamespace(
  options: OptionsOf<typeof define>,
  located: LocatedFolder,
  ctx: CommandContext,
): Promise<{ namespace: string; how: string | null }> {
  if (options.namespace !== undefined) {
    const checked = checkNamespaceName(options.namespace);
    if (!checked.ok) throw new UsageError(`--namespace: ${checked.message}; a namespace is ${NAMESPACE_RULE}`);
    return { namespace: options.namespace, how: null };
  }
  let repo: RepoInfo | undefined = located.repo;
  if (!repo && located.agent !== "folder") repo = await readRepo(ctx.cwd).catch(() => undefined);
  if (!repo)
    throw new UsageError(
      "--namespace is required unless the repository names it: pass --repo PATH (or run in the repository with --agent claude-code|codex)",
    );
  const remote = pickRemote(repo, options.remote);
  const derived = namespaceFromRemote(remote.url);
  const shown = displayRemoteUrl(remote.url);
  if (!derived.ok)
    throw new UsageError(`cannot name the namespace after remote ${remote.name} (${shown}): ${derived.reason}; pass --namespace`);
  return { namespace: derived.namespace, how: `from remote ${remote.name} (${shown}) of ${repo.worktreeRoot}` };
}

/** The lines saying which agent folder was chosen, for an agent's folder only. */
function describeFolder(located: LocatedFolder): string[] {
  if (located.agent === "claude-code") {
    const shared = located.repo ? "; every worktree of the repository shares it" : " (not a git repository: keyed by the folder itself)";
    const fresh = existsSync(located.root) ? "" : "; Claude Code has not written memory here yet, created";
    return [`Claude Code memory folder ${located.root} (${located.how}${shared}${fresh})`];
  }
  if (located.agent === "codex")
    return [`Codex memories folder ${located.root} (one for every repository; its team/ subfolder syncs with this namespace)`];
  return [];
}

async function run(options: OptionsOf<typeof define>, ctx: CommandContext): Promise<number> {
  const located = await locateFolder(options, ctx.env, ctx.cwd, true);
  const layout = layoutOf(located.root);
  await checkFolder(layout.root, "--dir ");
  await refuseNestedFolder(layout.root, { label: nestingLabel(located.how), init: true });
  const server = parseServerUrl(options.server);
  const flagToken = options.token === undefined ? undefined : checkToken(options.token, "--token");
  const existing = await loadConfig(layout);
  if (options.moved && !existing)
    throw new UsageError(`--moved points a folder already set up at another server; ${layout.root} is not set up yet: run teammem init without --moved`);
  // A moved server keeps the folder's namespace: the repository's remote is not asked again.
  const { namespace, how } = options.moved && options.namespace === undefined && existing ? { namespace: existing.namespace, how: null } : await chooseNamespace(options, located, ctx);
  const movedFrom = options.moved && existing && existing.server !== server ? existing.server : null;
  if (existing && existing.namespace !== namespace)
    throw new UsageError(
      `${layout.root} is already set up for namespace ${existing.namespace} at ${existing.server}; ` +
        `another namespace is another folder: use another --dir (removing ${layout.state} would drop its queued edits)`,
    );
  if (existing && existing.server !== server && !options.moved)
    throw new UsageError(
      `${layout.root} is already set up for namespace ${existing.namespace} at ${existing.server}; ` +
        `if the server moved to ${server}, run teammem init --server ${server} --moved (keeps the queued edits and sync state)`,
    );

  // The server, then the token, are checked first: an unreachable server, something that is not a
  // teammem server, a refused token (or namespace) all leave nothing behind.
  const token = findToken(options, ctx, existing);
  let remote: string;
  let reached = false;
  if (options.offline) {
    remote = `set up offline (server not contacted)${flagToken ? "; the token was stored without being checked" : ""}; the first sync creates the namespace`;
  } else {
    try {
      await checkIsTeammemServer(server);
      remote = token ? await checkRemote(server, namespace, token) : "server reached; namespace will be created on the first sync (no token yet)";
    } catch (err) {
      const failure = err instanceof NetworkError
        ? new ClientError(`${err.message}; nothing was set up (check --server and that the server runs, or pass --offline to set up without it)`, 1, err.code)
        : err;
      // A folder set up already (--moved, or init run again) was not "not set up": it is left as it was (try17 L4).
      if (existing && failure instanceof ClientError)
        throw new ClientError(failure.message.replace("nothing was set up", `nothing was changed (the folder still points at ${existing.server}, namespace ${existing.namespace})`), failure.exitCode, failure.code);
      throw failure;
    }
    reached = true;
  }

  const chosen = describeFolder(located);
  await mkdir(layout.root, { recursive: true });
  await mkdir(layout.state, { recursive: true, mode: 0o700 });
  await mkdir(layout.team, { recursive: true });
  await fsyncDir(layout.root);
  // The state folder ignores itself: a memory folder that is a git repository (Codex's is) never commits the token.
  await writeFile(join(layout.state, ".gitignore"), "*\n");
  const config: Config = existing ? { ...existing, server } : {
    version: 1,
    server,
    namespace,
    clientId: randomUUID(),
    fingerprintKey: randomBytes(32).toString("hex"),
  };
  if (!existing || located.agent !== "folder") config.agent = located.agent;
  if (located.projectRoot) config.projectRoot = located.projectRoot;
  if (flagToken) config.token = flagToken;
  await saveConfig(layout, config);
  if (token && reached) {
    // The team's fingerprint key, so fingerprints shown here match the server's and teammates'.
    try {
      await saveScanPolicy(layout, await createApi({ server, namespace: config.namespace, token }).scanPolicy());
    } catch (err) {
      if (!(err instanceof NetworkError || err instanceof ServerError)) throw err;
      ctx.io.stderr(`teammem: could not fetch the team's scan policy (${err.message}); the first sync fetches it\n`);
    }
  }
  await saveSyncState(layout, await loadSyncState(layout));
  if (how) chosen.push(`namespace ${namespace} ${how}`);
  if (movedFrom)
    chosen.push(
      `moved from ${movedFrom}: queued edits and sync state kept; the next sync carries on if ${server} serves the same database, else compares every team file with it by content`,
    );
  if (options.json) {
    const json = {
      ok: true,
      created: !existing,
      movedFrom,
      folder: layout.root,
      team: layout.team,
      agent: located.agent,
      server,
      namespace: config.namespace,
      namespaceFrom: how ?? "--namespace",
      clientId: config.clientId,
      reached,
      remote,
      notes: chosen,
    };
    ctx.io.stdout(JSON.stringify(json, null, 2) + "\n");
    return 0;
  }
  ctx.io.stdout(
    chosen.join("\n") +
      (chosen.length ? "\n" : "") +
      `${existing ? "updated" : "initialised"} ${layout.root}: namespace ${config.namespace} at ${server}; ` +
      `team scope ${layout.team}; ${remote}\n`,
  );
  return 0;
}
