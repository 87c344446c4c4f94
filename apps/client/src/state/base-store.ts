/**
 * `.teammem/bases/<sha256>`: the content of each version a base points at, so a pull can
 * three-way merge a teammate's version into a file changed here, and a delete plus a create can be
 * recognised as a rename, without asking the server (also offline). A cache, content-addressed:
 * files are written without fsync and checked against their name when read, so a torn or lost
 * file only means asking the server again (`GET .../version`). Files no base points at any more
 * are removed by {@link pruneBaseContents}.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "@teammem/protocol";
import { TEMP_PREFIX } from "./atomic.js";
import type { Layout } from "./layout.js";
import type { SyncState } from "./sync-state.js";

const SHA256 = /^[0-9a-f]{64}$/;

/** Keeps `content` under its sha256 (nothing to do when it is there already). */
export async function storeBaseContent(layout: Layout, content: string): Promise<void> {
  const file = join(layout.baseContents, sha256Hex(content));
  try {
    await stat(file);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  await mkdir(layout.baseContents, { recursive: true });
  const tmp = join(layout.baseContents, TEMP_PREFIX + randomBytes(8).toString("hex"));
  await writeFile(tmp, content);
  await rename(tmp, file);
}

/** The stored content whose sha256 is `sha256`, or undefined (not stored, or damaged). */
export async function readBaseContent(layout: Layout, sha256: string): Promise<string | undefined> {
  if (!SHA256.test(sha256)) return undefined;
  let content: string;
  try {
    content = await readFile(join(layout.baseContents, sha256), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  return sha256Hex(content) === sha256 ? content : undefined;
}

/** Removes stored contents (and left-over temporary files) that no base of `state` points at. */
export async function pruneBaseContents(layout: Layout, state: SyncState): Promise<void> {
  let names: string[];
  try {
    names = await readdir(layout.baseContents);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  const used = new Set(Object.values(state.bases).map((b) => b.sha256));
  for (const name of names) {
    if (used.has(name)) continue;
    await unlink(join(layout.baseContents, name)).catch(() => undefined);
  }
}

/** The sha256 of every content kept (by name; not read or checked), e.g. to recognise a version this folder once had as a base. */
export async function storedBaseHashes(layout: Layout): Promise<Set<string>> {
  try {
    return new Set((await readdir(layout.baseContents)).filter((name) => SHA256.test(name)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return new Set();
    throw err;
  }
}
