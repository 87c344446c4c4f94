/**
 * Owner-only permissions for the embedded database's folder: its files hold every team's memory
 * and the server's JWT key. PGlite's initdb copies its template files as 0666 whatever the umask,
 * so they are set right after it ran; files PostgreSQL creates later are 0600 by its own rule.
 */
import { chmod, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/** Folders 0700, files 0600. */
const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

/**
 * Runs `fn` with the process umask at 077, so whatever it creates is owner-only; the previous
 * umask is restored after. (The umask is process-wide: call it only where the process creates
 * nothing meant for others meanwhile, as in the server's start.)
 */
export async function withPrivateUmask<T>(fn: () => Promise<T>): Promise<T> {
  const previous = process.umask(0o077);
  try {
    return await fn();
  } finally {
    process.umask(previous);
  }
}

/**
 * Sets `dir` and everything below it to owner-only modes (folders {@link PRIVATE_DIR_MODE}, files
 * {@link PRIVATE_FILE_MODE}). Symbolic links are neither followed nor changed.
 * @throws the fs error of a file that cannot be changed (e.g. owned by another user).
 */
export async function makeTreePrivate(dir: string): Promise<void> {
  await chmod(dir, PRIVATE_DIR_MODE);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await makeTreePrivate(path);
    else if (entry.isFile()) await chmod(path, PRIVATE_FILE_MODE);
    else if (!entry.isSymbolicLink() && (await lstat(path)).isFile()) await chmod(path, PRIVATE_FILE_MODE);
  }
}
