/**
 * try21 F8: a pull SIGKILLed after writing some files (the built CLI, a real process, against a
 * real `teammem-server` on PostgreSQL), then a file it wrote is edited here. The pull journal
 * (`.teammem/pulled.jsonl`) names the version the pull gave that file, so the edit is an edit of
 * the teammate's version: the next sync sends it as a fast-forward (only the edit), never as a
 * second create that the create-on-both-sides merge would add to the teammate's lines.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createPostgresDatabase } from "@teammem/server/testing";
import { CLIENT_CLI, runCli, startServer } from "../../scripts/lib/processes.mjs";

const FILES = 600;
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The journaled paths of `dir`, in the order the pull applies them (empty without a journal). */
function journaled(dir: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(dir, ".teammem", "pulled.jsonl"), "utf8");
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const line of text.split("\n")) {
    try {
      const parsed = JSON.parse(line) as { b?: [string, number, string | null][] };
      for (const [path] of parsed.b ?? []) out.push(path);
    } catch {
      /* blank or cut off */
    }
  }
  return out;
}

/**
 * A file the stopped pull wrote with its state unsaved: journaled, on disk with the teammate's
 * content, no base in state.json, and followed by another written journaled file (so the pull was
 * past it, not stopped in the middle of writing it).
 */
function writtenUnsaved(dir: string, text: (path: string) => string): string | undefined {
  const paths = journaled(dir);
  const state = JSON.parse(readFileSync(join(dir, ".teammem", "state.json"), "utf8")) as { bases: Record<string, unknown> };
  const onDisk = (p: string) => existsSync(join(dir, "team", p)) && readFileSync(join(dir, "team", p), "utf8") === text(p);
  for (let i = 0; i < paths.length - 1; i++) {
    const p = paths[i]!;
    if (state.bases[p] === undefined && onDisk(p) && paths.slice(i + 1).some(onDisk)) return p;
  }
  return undefined;
}

describe("teammem sync SIGKILLed while pulling (try21 F8)", () => {
  it("an edit of a file the stopped pull wrote is sent as an edit of the teammate's version, not merged as a second create", async () => {
    const db = await createPostgresDatabase(inject("postgresUrl"));
    cleanups.push(db.drop);
    const server = await startServer({ databaseUrl: db.url });
    cleanups.push(server.stop);
    const admin = /Admin token \(shown once, keep it safe\): (\S+)/.exec(server.output())![1]!;
    const token = async (user: string) => {
      const issued = await fetch(`${server.url}/v1/admin/tokens`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify({ user, role: "member" }),
      });
      return { TEAMMEM_TOKEN: ((await issued.json()) as { token: string }).token };
    };
    const [envA, envB] = [await token("alice"), await token("bob")];
    const root = mkdtempSync(join(tmpdir(), "teammem-killpull-"));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const [a, b] = [join(root, "a"), join(root, "b")];
    runCli(CLIENT_CLI, ["init", "--dir", a, "--server", server.url, "--namespace", "kill-ns"], { env: envA });
    runCli(CLIENT_CLI, ["init", "--dir", b, "--server", server.url, "--namespace", "kill-ns"], { env: envB });
    runCli(CLIENT_CLI, ["sync", "--dir", b], { env: envB }); // synced once: its next sync pulls

    const text = (path: string) => `alpha\nbeta ${path}\ngamma\n`;
    // Rounds: alice adds files, bob's sync is SIGKILLed once its pull wrote some with their state unsaved.
    let picked: string | undefined;
    for (let round = 0; round < 5 && picked === undefined; round++) {
      mkdirSync(join(a, "team", `z${round}`), { recursive: true });
      for (let i = 0; i < FILES; i++) writeFileSync(join(a, "team", `z${round}`, `h${i}.md`), text(`z${round}/h${i}.md`));
      runCli(CLIENT_CLI, ["sync", "--dir", a], { env: envA });
      const child = spawn(process.execPath, [CLIENT_CLI, "sync", "--dir", b], { env: { PATH: process.env["PATH"] ?? "", ...envB }, stdio: "ignore" });
      const exited = once(child, "exit");
      let done = false;
      void exited.then(() => (done = true));
      while (!done && writtenUnsaved(b, text) === undefined) await new Promise((r) => setTimeout(r, 2));
      child.kill("SIGKILL");
      await exited;
      picked = writtenUnsaved(b, text);
      // The killed command's lock would be taken over after 30 s; age it instead of waiting.
      const past = new Date(Date.now() - 60_000);
      try {
        utimesSync(join(b, ".teammem", "command.lock"), past, past);
      } catch {
        /* not held */
      }
    }
    expect(picked, "no kill landed while the pull had written files with their state unsaved").toBeDefined();
    const path = picked!;

    // Bob edits it (an agent writing memory, an editor): one line replaced.
    const edited = text(path).replace("gamma\n", "gamma edited by bob\n");
    writeFileSync(join(b, "team", path), edited);
    const again = runCli(CLIENT_CLI, ["sync", "--dir", b], { env: envB });
    expect(again.stdout).not.toContain("lines added on both sides kept both");
    expect(readFileSync(join(b, "team", path), "utf8")).toBe(edited);
    runCli(CLIENT_CLI, ["sync", "--dir", a], { env: envA });
    expect(readFileSync(join(a, "team", path), "utf8")).toBe(edited);
    const status = JSON.parse(runCli(CLIENT_CLI, ["status", "--dir", b, "--json"], { env: envB }).stdout) as { pending: unknown[] };
    expect(status.pending).toEqual([]);
  }, 180_000);
});
