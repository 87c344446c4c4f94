/**
 * Purging content an admin says should never have been stored (a leaked credential that got
 * through, a private note): in one namespace transaction, a purged head is replaced by a tombstone
 * (kind `purge`, so clients delete the file through the change feed), and the content is removed
 * from every targeted version (kept as a placeholder: who, when, why), from every conflict record
 * of the namespace holding the same content, and from stored operation results that carry it.
 * A purge that leaves the head alone (an older version) moves the entry to a new cursor, so the
 * change feed and stream announce it too: the change carries `purged` (store/changes.ts) and every
 * client drops the content it holds (base copies, conflict copies).
 */
import type { PurgeResponse } from "@teammem/protocol";
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { recordAuditEvent } from "../audit/events.js";
import type { Db } from "../db/database.js";
import { conflicts, entries, namespaces, operations, versions } from "../db/schema.js";
import { Refusal } from "../errors/refusal.js";
import { redactSecrets } from "../secrets/names.js";
import { writeHead } from "./direct-writes.js";
import { readHead } from "./heads.js";
import { inNamespaceTransaction } from "./namespace-transaction.js";
import type { WriteContext } from "./write-context.js";

export interface PurgeInput {
  readonly path: string;
  readonly version: number;
  readonly reason: string;
  /** Also every other version of the entry with the same content. */
  readonly sameContent: boolean;
}

/**
 * Purges as {@link PurgeInput} says, with the `version_purged` audit event, atomically.
 * @throws Refusal not_found (no such version of the path), invalid_request (a tombstone has no
 *   content), secret_detected (a credential in the reason).
 */
export async function purgeVersion(db: Db, ctx: WriteContext, input: PurgeInput): Promise<PurgeResponse> {
  if (redactSecrets(input.reason) !== input.reason) throw new Refusal("secret_detected", "reason holds a credential; describe it without the value", { field: "reason" });
  const ns = ctx.namespace.id;
  return inNamespaceTransaction(db, ctx, async (tx, cursor) => {
    const [target] = await tx
      .select({ sha256: versions.sha256, deleted: versions.deleted, purgedAt: versions.purgedAt })
      .from(versions)
      .where(and(eq(versions.namespaceId, ns), eq(versions.path, input.path), eq(versions.version, input.version)));
    if (!target) throw new Refusal("not_found", `no version ${input.version} at this path`);
    if (target.deleted) throw new Refusal("invalid_request", `version ${input.version} of this path is a tombstone: it has no content to purge`, { reason: "tombstone" });
    const sha = target.sha256!;
    const matching = and(
      eq(versions.namespaceId, ns),
      eq(versions.path, input.path),
      input.sameContent ? eq(versions.sha256, sha) : eq(versions.version, input.version),
      eq(versions.deleted, false),
    );
    const shas = new Set((await tx.select({ sha256: versions.sha256 }).from(versions).where(matching)).map((r) => r.sha256!));

    // A purged head goes first: the tombstone is what tells teammates' clients to drop the file.
    const head = await readHead(tx, ns, input.path);
    let tombstoneVersion: number | null = null;
    if (head && !head.deleted && head.sha256 !== null && shas.has(head.sha256)) {
      tombstoneVersion = (await writeHead(tx, ctx, input.path, head, cursor, null, "purge", null)).version;
    }

    const purged = await tx
      .update(versions)
      .set({ content: null, purgedBy: ctx.author.name, purgedAt: new Date(), purgeReason: input.reason })
      .where(and(matching, isNotNull(versions.content)))
      .returning({ version: versions.version });
    const list = [...shas];
    const scrubbed = await tx
      .update(conflicts)
      .set({ content: null })
      .where(and(eq(conflicts.namespaceId, ns), inArray(conflicts.sha256, list), isNotNull(conflicts.content)))
      .returning({ id: conflicts.id });
    // Stored results of merges carry the merged content: those holding it are dropped (a replay
    // of such an operation is then applied anew, against the current head).
    const dropped = await tx
      .delete(operations)
      .where(
        and(
          eq(operations.namespaceId, ns),
          sql`${operations.result} ? 'content'`,
          sql`encode(sha256(convert_to(${operations.result}->>'content', 'UTF8')), 'hex') IN (${sql.join(
            list.map((s) => sql`${s}`),
            sql`, `,
          )})`,
        ),
      )
      .returning({ opId: operations.opId });
    const versionsPurged = purged.map((r) => r.version).sort((a, b) => a - b);
    if (tombstoneVersion === null && versionsPurged.length > 0) {
      // The head stays: announce the purge by moving the entry to the next cursor (same version).
      const next = cursor + 1;
      await tx.update(namespaces).set({ cursor: next }).where(eq(namespaces.id, ns));
      await tx.update(entries).set({ cursor: next }).where(and(eq(entries.namespaceId, ns), eq(entries.path, input.path)));
    }
    await recordAuditEvent(tx, {
      teamId: ctx.namespace.teamId,
      actor: ctx.author,
      kind: "version_purged",
      namespace: ctx.namespace.name,
      path: input.path,
      version: input.version,
      count: versionsPurged.length,
      reasonText: input.reason,
    });
    return { path: input.path, versions: versionsPurged, tombstoneVersion, conflicts: scrubbed.length, operations: dropped.length };
  });
}
