/**
 * What `teammem watch` reports while it runs: one {@link LiveEvent} per thing that happened, as a
 * human-readable line (`12:04:05 synced team/a.md`) or, with `--json`, one JSON object per line
 * (`{"at":"2026-...Z","type":"synced",...}`), documented in the client README (*teammem watch*).
 * Paths are display paths (`team/...`, credentials redacted); never file content or a secret.
 */
import { describeEvent, type SyncEvent } from "../sync/events.js";

interface Finding {
  readonly ruleId: string;
  readonly label: string;
  readonly line: number;
  readonly column: number;
}

export type LiveEvent =
  /** The watch is up: folder, server, namespace, the cursor it starts from. */
  | { readonly type: "started"; readonly folder: string; readonly server: string; readonly namespace: string; readonly cursor: number }
  /** The change stream is subscribed (live pulls from here on). */
  | { readonly type: "connected"; readonly cursor: number }
  /** The stream or a sync failed for a reason that can pass: trying again after `retryInMs`. */
  | { readonly type: "disconnected"; readonly reason: string; readonly retryInMs: number }
  /** A local file reached the server: `result` applied as is, merged with a teammate's edit by the server, or recorded as a conflict. */
  | { readonly type: "synced"; readonly path: string; readonly result: "applied" | "merged" | "conflict" }
  /** A local file was not sent: a credential in it (`findings`, line and column) or in its name (`pathFindings`). */
  | { readonly type: "held-back"; readonly path: string; readonly findings: readonly Finding[]; readonly pathFindings: readonly Pick<Finding, "ruleId" | "label">[] }
  /**
   * A file was refused with `code` (details in `teammem status`): `here` by this client before
   * sending (over the server's limits; never sent), else by the server.
   */
  | { readonly type: "rejected"; readonly path: string; readonly code: string; readonly here: boolean }
  /** A file not sent because conflict markers remain in it (first marker at `line`). */
  | { readonly type: "unresolved"; readonly path: string; readonly line: number }
  /** What a sync did (a teammate's change applied, a merge, a conflict, a rename, a bypass decided or revoked...): the sync summary's events. */
  | ({ readonly type: "sync-event" } & { readonly event: SyncEvent })
  /** A diagnostic (a file not written, a skipped change...). */
  | { readonly type: "warning"; readonly message: string }
  /** The watch ends: `exitCode` 0 after a stop (SIGINT/SIGTERM), 1 after a permanent error (`message`); `pending` operations stay queued. */
  | { readonly type: "stopped"; readonly exitCode: 0 | 1; readonly pending: number; readonly message?: string; readonly code?: string };

/** One line (with its newline) for `event` at `at`. */
export function formatLiveEvent(event: LiveEvent, at: Date, json: boolean): string {
  if (json) {
    const { type, ...rest } = event;
    const body = type === "sync-event" ? { ...event.event } : { type, ...rest };
    return JSON.stringify({ at: at.toISOString(), ...body }) + "\n";
  }
  return `${at.toISOString().slice(11, 19)} ${describeLive(event)}\n`;
}

function describeLive(e: LiveEvent): string {
  switch (e.type) {
    case "started":
      return `watching ${e.folder} (namespace ${e.namespace} on ${e.server}, from cursor ${e.cursor}); Ctrl-C to stop`;
    case "connected":
      return `live: subscribed to the server's changes (cursor ${e.cursor})`;
    case "disconnected":
      return `${e.reason}; trying again in ${(e.retryInMs / 1000).toFixed(1)} s`;
    case "synced":
      return e.result === "applied"
        ? `synced ${e.path}`
        : e.result === "merged"
          ? `synced ${e.path} (merged with a teammate's edit on the server)`
          : `synced ${e.path} as a conflict (the server kept its version; see teammem status)`;
    case "held-back":
      return [
        ...e.pathFindings.map((f) => `held back ${e.path}: path holds ${f.ruleId} (${f.label})`),
        ...e.findings.map((f) => `held back ${e.path}:${f.line}:${f.ruleId} (${f.label}); not sent`),
      ].join("\n         ");
    case "rejected":
      return `${e.here ? "refused here, never sent" : "rejected by the server"}: ${e.path} (${e.code}; see teammem status)`;
    case "unresolved":
      return `${e.path}: not sent, conflict markers still in it (line ${e.line}); remove them (or teammem resolve)`;
    case "sync-event":
      return describeEvent(e.event);
    case "warning":
      return `warning: ${e.message}`;
    case "stopped":
      return (
        (e.exitCode === 0 ? `stopped${e.message ? `: ${e.message}` : ""}` : `stopped: ${e.message ?? "error"} [${e.code ?? "failed"}]`) +
        (e.pending > 0 ? `; ${e.pending} change(s) stay queued and the next sync, push or watch sends them` : "")
      );
  }
}
