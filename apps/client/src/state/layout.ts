/**
 * Where everything lives in a memory folder:
 *
 * ```
 * <root>/team/...                 team scope: synced
 * <root>/<anything else>          private: never read by the client
 * <root>/.teammem/                state folder (private, never synced)
 *   config.json                   server, namespace, clientId, optional token (mode 0600), agent
 *   .gitignore                    "*": a memory folder that is a git repository never commits this folder
 *   scan-policy.json              the team's fingerprint key as fetched from the server (mode 0600)
 *   state.json                    cursor and per-path base {version, sha256}
 *   outbox/<seq>-<opId>.json      durable queue: one operation per file, named in enqueue order
 *   outbox-seq.json               last outbox sequence number handed out
 *   outbox-sent.log               opIds of queued operations that may have reached the server (never rewritten)
 *   held-back.json                team files held back by the scanner (findings, never values)
 *   rejected.json                 operations the server refused
 *   conflicts.json                conflicts the server recorded, with the local copy's location
 *   not-written.json              pulled versions that could not be written locally (and why)
 *   newer-on-server.json          pulled versions not applied because the local file was changed
 *   bypasses.json                 bypass requests sent (sync --allow) and their last known state
 *   conflicts/<conflictId>/<path> our side of each conflict
 *   bases/<sha256>                content of the versions the bases point at (a cache for merges and renames)
 *   command.lock/, command.lock.holder  lock of the running command (proper-lockfile) and its holder
 *   watch.lock/, watch.lock.holder, watch.pid  lock of the running `teammem watch`, its holder, its process id
 * ```
 */
import { join, resolve } from "node:path";
import { isInvisibleCodePoint } from "@teammem/protocol";
import { escapeControls, redact } from "@teammem/scanner";

export { escapeControls };

/** The team scope's folder name inside a memory folder. */
export const TEAM_DIR = "team";
/** The state folder's name inside a memory folder; a folder holding it is a set-up memory folder. */
export const STATE_DIR = ".teammem";

export interface Layout {
  readonly root: string;
  readonly team: string;
  readonly state: string;
  readonly config: string;
  readonly scanPolicy: string;
  readonly syncState: string;
  /** `pulled.jsonl`: the bases a pull is about to write, kept until state.json holds them (`state/pull-journal.ts`). */
  readonly pullJournal: string;
  readonly lastSync: string;
  readonly outbox: string;
  readonly outboxSeq: string;
  /** `outbox-sent.log`: the opIds of queued operations whose request may have left (`state/outbox.ts` `markSent`). */
  readonly outboxSent: string;
  readonly heldBack: string;
  readonly rejected: string;
  readonly conflicts: string;
  readonly notWritten: string;
  readonly newerOnServer: string;
  readonly bypasses: string;
  readonly conflictCopies: string;
  readonly baseContents: string;
  readonly lock: string;
  readonly watchLock: string;
  readonly watchPid: string;
}

/** The layout of the memory folder `root` (resolved against the process's cwd). */
export function layoutOf(root: string): Layout {
  const abs = resolve(root);
  const state = join(abs, STATE_DIR);
  return {
    root: abs,
    team: join(abs, TEAM_DIR),
    state,
    config: join(state, "config.json"),
    scanPolicy: join(state, "scan-policy.json"),
    syncState: join(state, "state.json"),
    pullJournal: join(state, "pulled.jsonl"),
    lastSync: join(state, "last-sync.json"),
    outbox: join(state, "outbox"),
    outboxSeq: join(state, "outbox-seq.json"),
    outboxSent: join(state, "outbox-sent.log"),
    heldBack: join(state, "held-back.json"),
    rejected: join(state, "rejected.json"),
    conflicts: join(state, "conflicts.json"),
    notWritten: join(state, "not-written.json"),
    newerOnServer: join(state, "newer-on-server.json"),
    bypasses: join(state, "bypasses.json"),
    conflictCopies: join(state, "conflicts"),
    baseContents: join(state, "bases"),
    lock: join(state, "command.lock"),
    watchLock: join(state, "watch.lock"),
    watchPid: join(state, "watch.pid"),
  };
}

/**
 * How an entry path is shown to the user and reported: relative to the memory folder, e.g.
 * `team/a.md`, with any credential in the name replaced by `[REDACTED:<rule>]` (a file named after
 * a token must not print the token) and control characters escaped (see escapeControls).
 */
export function displayPath(entryPath: string): string {
  return `${TEAM_DIR}/${escapeShown(redact(entryPath))}`;
}

/** A path relative to the memory folder (e.g. a conflict copy), or the folder itself, shown redacted and escaped like displayPath. */
export function displayRelative(path: string): string {
  return escapeShown(redact(path));
}

/**
 * Controls escaped (escapeControls), and every other character the entry-path rule refuses as
 * invisible (zero-width space, Hangul filler, combining grapheme joiner, BOM...) written as
 * `\u200b` too, as bidi controls are: a refused name is shown with what makes it refused (try18 F12).
 */
function escapeShown(text: string): string {
  let out = "";
  for (const c of escapeControls(text)) {
    const cp = c.codePointAt(0)!;
    out += !isInvisibleCodePoint(cp) ? c : cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, "0")}`;
  }
  return out;
}
