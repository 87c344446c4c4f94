/** Every `teammem` command speaks JSON with --json; `sync --dry-run` tells what a sync would do and changes nothing (issue 8). */
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { layoutOf, Watch } from "@teammem/client";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { teammem, tempDir } from "../support/cli.js";
import { setup, sync, syncJson } from "../support/clients.js";
import { dumpAllRows } from "../support/server.js";

/** Every file under `dir` with its bytes (state folder included), as one comparable record. */
async function folderBytes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        out[`${relative(dir, p)}/`] = "";
        await walk(p);
      } else out[relative(dir, p)] = (await readFile(p)).toString("base64");
    }
  };
  await walk(dir);
  return out;
}

/** The command names `teammem --help` lists. */
async function commandNames(): Promise<string[]> {
  const help = (await teammem(["--help"])).stdout;
  const section = help.slice(help.indexOf("Commands:"));
  return [...section.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!).filter((n) => n !== "help");
}

describe("--json on every command", () => {
  it("prints one JSON document on stdout for each command the CLI lists, success or refusal", async () => {
    const { a, b, envA, envB, server } = await setup("postgres");
    const home = await tempDir("teammem-json-home-");
    const env = { ...envA, CLAUDE_CONFIG_DIR: home.path };
    try {
      await writeFile(join(a, "team", "x.md"), "one\n");
      await sync(a, envA);
      await writeFile(join(a, "team", "x.md"), "one\ntwo\n");
      const fresh = join(a, "..", "fresh");
      const runs: Record<string, string[][]> = {
        init: [["init", "--dir", fresh, "--server", server.url, "--namespace", "acme-web"]],
        sync: [["sync", "--dir", b], ["sync", "--dir", a, "--dry-run"]],
        push: [["push", "team/x.md", "--dir", a]],
        status: [["status", "--dir", a]],
        history: [["history", "team/x.md", "--dir", a]],
        diff: [["diff", "team/x.md", "--from", "1", "--dir", a]],
        restore: [["restore", "team/x.md", "--version", "1", "--dir", a]],
        check: [["check", "--dir", a]],
        doctor: [["doctor", "--dir", a]],
        resolve: [["resolve", "team/x.md", "--dir", a]], // no conflict: the refusal as JSON
        watch: [["watch", "--dir", b]], // long-running (JSON lines); here refused as a second watch: the refusal as JSON
        scan: [["scan", "team/x.md", "--dir", a]],
        hooks: [
          ["hooks", "install", "--agent", "claude-code"],
          ["hooks", "uninstall", "--agent", "claude-code"],
        ],
      };
      expect(Object.keys(runs).sort()).toEqual((await commandNames()).sort());
      const running = new Watch(layoutOf(b), { token: await server.token("bob"), log: () => undefined });
      await running.start();
      onTestFinished(() => running.stop().then(() => undefined));
      for (const [command, argvs] of Object.entries(runs)) {
        for (const argv of argvs) {
          const r = await teammem([...argv, "--json"], command === "sync" && argv.includes(b) ? envB : env);
          let parsed: unknown;
          expect(() => (parsed = JSON.parse(r.stdout)), `${argv.join(" ")}: ${r.stdout} ${r.stderr}`).not.toThrow();
          expect(typeof parsed, argv.join(" ")).toBe("object");
          if (command === "resolve") expect([r.code, (parsed as { error: { code: string } }).error.code]).toEqual([1, "failed"]);
          else if (command === "watch") expect([r.code, (parsed as { error: { code: string } }).error.code]).toEqual([1, "watch_running"]);
          else expect(r.code, `${argv.join(" ")}: ${r.stderr}`).toBe(0);
        }
      }
    } finally {
      await home.remove();
    }
  });
});

describe("sync --dry-run", () => {
  it("lists what would be pulled, sent, deleted and held back; the state folder, the files and every server table stay byte for byte", async () => {
    const { a, b, envA, envB, server } = await setup("postgres");
    for (const f of ["keep.md", "edit.md", "gone.md", "theirs.md"]) await writeFile(join(a, "team", f), `${f}\n`);
    await sync(a, envA);
    await sync(b, envB);
    // A teammate's edit and new file waiting on the server.
    await writeFile(join(b, "team", "theirs.md"), "theirs.md\nby bob\n");
    await writeFile(join(b, "team", "bob.md"), "bob\n");
    await sync(b, envB);
    // Local work: a new file, an edit, a delete, a file with a credential, a private note.
    await writeFile(join(a, "team", "new.md"), "new\n");
    await writeFile(join(a, "team", "edit.md"), "edit.md\nmore\n");
    await rm(join(a, "team", "gone.md"));
    await writeFile(join(a, "team", "secret.md"), `token ${fakeGithubPat(7)}\n`);
    await mkdir(join(a, "notes"));
    await writeFile(join(a, "notes", "private.md"), "private\n");

    const filesBefore = await folderBytes(a);
    const rowsBefore = await dumpAllRows(server.database);
    const r = await teammem(["sync", "--dir", a, "--dry-run", "--json"], envA);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan).toMatchObject({
      ok: true,
      dryRun: true,
      pull: [
        { path: "team/bob.md", version: 1, author: "bob", action: "write" },
        { path: "team/theirs.md", version: 2, author: "bob", action: "write" },
      ],
      send: [
        { path: "team/edit.md", action: "edit", baseVersion: 1, queued: false },
        { path: "team/gone.md", action: "delete", baseVersion: 1, queued: false },
        { path: "team/new.md", action: "create", baseVersion: 0, queued: false },
      ],
      heldBack: [{ path: "team/secret.md", findings: [{ ruleId: "github-pat", line: 1 }] }],
      refused: null,
      pending: 0,
    });
    expect(JSON.stringify(plan)).not.toContain(fakeGithubPat(7));
    expect(JSON.stringify(plan)).not.toContain("private");
    const text = await teammem(["sync", "--dir", a, "--dry-run"], envA);
    expect(text.stdout).toContain("dry run: nothing was sent, written or changed\nwould pull 2 change(s):\n  team/bob.md v1 by bob: written here\n");
    expect(text.stdout).toContain("  team/gone.md: delete (base v1)\n");
    expect(text.stdout).toContain("held back (secret found, would not be sent): team/secret.md:1 github-pat\n");
    expect(await folderBytes(a)).toEqual(filesBefore);
    expect(await dumpAllRows(server.database)).toEqual(rowsBefore);

    // The sync does what the dry run said.
    const done = await syncJson(a, envA);
    expect(done.json.pushed.applied.sort()).toEqual(["team/edit.md", "team/gone.md", "team/new.md"]);
    expect(done.json.pulled.written.sort()).toEqual(["team/bob.md", "team/theirs.md"]);
    expect(done.json.heldBack.map((h: { path: string }) => h.path)).toEqual(["team/secret.md"]);
  });

  it("forecasts a reader's edit as refused (forbidden), and an edit refused so before as sent once the token may write, as the sync then does (try13)", { timeout: 180_000 }, async () => {
    const { server, a, envA, b } = await setup("pglite");
    await writeFile(join(a, "team", "guide.md"), "v1\n");
    expect((await sync(a, envA)).code).toBe(0);
    const admin = await server.token("root", "default", "admin");
    const setRole = async (role: "member" | "reader") => {
      const res = await fetch(`${server.url}/v1/admin/members/rita`, {
        method: "PUT",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify({ role }),
      });
      expect(res.status).toBe(200);
    };
    const ritaEnv = { TEAMMEM_TOKEN: await server.token("rita", "default", "member") };
    expect((await sync(b, ritaEnv)).code).toBe(0);
    await setRole("reader");
    await writeFile(join(b, "team", "guide.md"), "edited as a reader\n");
    await writeFile(join(b, "team", "new.md"), "new\n");

    const dry = await teammem(["sync", "--dir", b, "--dry-run", "--json"], ritaEnv);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      send: [],
      forbidden: [
        { path: "team/guide.md", action: "edit" },
        { path: "team/new.md", action: "create" },
      ],
    });
    expect((await teammem(["sync", "--dir", b, "--dry-run"], ritaEnv)).stdout).toContain(
      "would send 0 operation(s)\nwould be refused: team/guide.md: edit (forbidden: your token is read-only, a reader's edits are not sent)\n",
    );
    const real = await syncJson(b, ritaEnv);
    expect([real.json.pushed.applied, real.json.pushed.rejected.sort()]).toEqual([[], ["team/guide.md", "team/new.md"]]);

    // The same edits, now that rita may write again: the dry run and the sync both send them.
    await setRole("member");
    const again = JSON.parse((await teammem(["sync", "--dir", b, "--dry-run", "--json"], ritaEnv)).stdout);
    expect(again).toMatchObject({ notResent: [], forbidden: [] });
    expect(again.send.map((s: { path: string; action: string }) => [s.path, s.action]).sort()).toEqual([
      ["team/guide.md", "edit"],
      ["team/new.md", "create"],
    ]);
    expect((await syncJson(b, ritaEnv)).json.pushed.applied.sort()).toEqual(["team/guide.md", "team/new.md"]);
  });

  it("names a merge, an outbox operation left by an unreachable server, and a mass delete it would refuse (exit 1)", async () => {
    const { a, b, envA, envB, server } = await setup("postgres");
    for (let i = 0; i < 14; i++) await writeFile(join(a, "team", `n${i}.md`), `note ${i}\n`);
    await sync(a, envA);
    await sync(b, envB);
    await writeFile(join(b, "team", "n0.md"), "note 0\nfrom bob\n");
    await sync(b, envB);
    await writeFile(join(a, "team", "n0.md"), "from alice\nnote 0\n");
    await writeFile(join(a, "team", "n1.md"), "note 1 edited offline\n");
    await server.stop();
    expect((await sync(a, envA)).code).toBe(1); // queued, not sent
    const offline = await teammem(["sync", "--dir", a, "--dry-run", "--json"], envA);
    expect(offline.code).toBe(1);
    expect(JSON.parse(offline.stdout)).toMatchObject({ ok: false, error: { code: "network_error" }, pending: 2 });
    await server.start();
    const plan = JSON.parse((await teammem(["sync", "--dir", a, "--dry-run", "--json"], envA)).stdout);
    expect(plan.pull).toEqual([{ path: "team/n0.md", version: 2, author: "bob", action: "merge" }]);
    expect(plan.send.map((s: { path: string; queued: boolean }) => [s.path, s.queued])).toEqual([
      ["team/n0.md", true],
      ["team/n1.md", true],
    ]);

    for (let i = 2; i < 13; i++) await rm(join(a, "team", `n${i}.md`));
    const before = await folderBytes(a);
    const refused = await teammem(["sync", "--dir", a, "--dry-run", "--json"], envA);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).refused).toMatchObject({ code: "mass_delete_refused" });
    expect(refused.stderr).toContain("a sync now would be refused");
    expect(await folderBytes(a)).toEqual(before);
    expect(existsSync(join(a, "team", "n0.md"))).toBe(true);
  });

  it("forecasts queued operations as the send path will send them: the file as it is now (deleted, changed, holding a credential), not the snapshot queued", async () => {
    const { a, envA, server } = await setup("pglite");
    await writeFile(join(a, "team", "kept.md"), "kept v1\n");
    await sync(a, envA);
    await server.stop();
    await writeFile(join(a, "team", "oops.md"), "private note written here by mistake\n");
    await writeFile(join(a, "team", "changed.md"), "first draft\n");
    await writeFile(join(a, "team", "leaky.md"), "clean when queued\n");
    await writeFile(join(a, "team", "kept.md"), "kept v2\n");
    expect((await sync(a, envA)).code).toBe(1); // four operations queued, none sent
    await rm(join(a, "team", "oops.md"));
    await writeFile(join(a, "team", "changed.md"), "second draft\n");
    await writeFile(join(a, "team", "leaky.md"), `token ${fakeGithubPat(21)}\n`);
    await server.start();

    const dry = await teammem(["sync", "--dir", a, "--dry-run", "--json"], envA);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan.send).toEqual([
      { path: "team/changed.md", action: "create", baseVersion: 0, queued: true },
      { path: "team/kept.md", action: "edit", baseVersion: 1, queued: true },
    ]);
    expect(plan.dropped).toEqual([{ path: "team/oops.md", reason: "deleted" }]);
    expect(plan.heldBack).toMatchObject([{ path: "team/leaky.md", findings: [{ ruleId: "github-pat", line: 1 }] }]);
    expect((await teammem(["sync", "--dir", a, "--dry-run"], envA)).stdout).toContain("not sent: team/oops.md was queued earlier and deleted since");

    // The sync does what the dry run said.
    const done = await syncJson(a, envA);
    expect(done.json.pushed.applied.sort()).toEqual(["team/changed.md", "team/kept.md"]);
    expect(done.json.heldBack.map((h: { path: string }) => h.path)).toEqual(["team/leaky.md"]);
    expect((await teammem(["history", "team/oops.md", "--dir", a, "--json"], envA)).code).toBe(2); // never reached the server
  });

  it("forecasts files moved into a folder as the renames the sync sends (not deletes, so no mass delete), and a lone delete as a delete", async () => {
    const { a, b, envA, envB } = await setup("pglite");
    for (let i = 0; i < 13; i++) await writeFile(join(a, "team", `n${i}.md`), `note ${i}\nwith a second line\n`);
    await sync(a, envA);
    await sync(b, envB);
    await mkdir(join(a, "team", "docs"));
    for (let i = 0; i < 12; i++) {
      const text = await readFile(join(a, "team", `n${i}.md`), "utf8");
      await rm(join(a, "team", `n${i}.md`));
      await writeFile(join(a, "team", "docs", `n${i}.md`), i === 0 ? `${text}edited while moving\n` : text);
    }
    await rm(join(a, "team", "n12.md"));
    const dry = await teammem(["sync", "--dir", a, "--dry-run", "--json"], envA);
    expect(dry.code, dry.stderr).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan.refused).toBeNull();
    expect(plan.send).toHaveLength(13);
    expect(plan.send).toContainEqual({ path: "team/docs/n0.md", action: "rename", renamedFrom: "team/n0.md", baseVersion: 0, queued: false });
    expect(plan.send.filter((s: { action: string }) => s.action === "rename")).toHaveLength(12);
    expect(plan.send).toContainEqual({ path: "team/n12.md", action: "delete", baseVersion: 1, queued: false });
    // The sync does what the dry run said: 12 renames, one delete.
    expect((await sync(a, envA)).code).toBe(0);
    const pulled = await syncJson(b, envB);
    expect(pulled.json.events.filter((e: { type: string }) => e.type === "renamed")).toHaveLength(12);
    expect(existsSync(join(b, "team", "docs", "n5.md"))).toBe(true);
    expect(existsSync(join(b, "team", "n12.md"))).toBe(false);
  });

  it("says the sync would reconcile when the server refuses the folder's cursor as from another server or epoch, or the state folder was lost", async () => {
    const { a, b, envA } = await setup("postgres");
    await writeFile(join(a, "team", "x.md"), "x\n");
    await sync(a, envA);
    const statePath = join(a, ".teammem", "state.json");
    const state = JSON.parse(await readFile(statePath, "utf8"));
    await writeFile(statePath, JSON.stringify({ ...state, cursor: state.cursor + 1000 })); // as after a server restored from an older backup
    const before = await folderBytes(a);
    const r = await teammem(["sync", "--dir", a, "--dry-run", "--json"], envA);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, reconcile: true, pull: [], send: [] });
    expect((await teammem(["sync", "--dir", a, "--dry-run"], envA)).stdout).toContain("the sync would reconcile every entry instead of pulling");
    expect(await folderBytes(a)).toEqual(before);

    // A folder whose state folder was lost (init again over its files) reconciles by content too.
    await rm(join(a, ".teammem"), { recursive: true });
    expect((await teammem(["init", "--dir", a, "--server", JSON.parse(await readFile(join(b, ".teammem", "config.json"), "utf8")).server, "--namespace", "acme-web"], envA)).code).toBe(0);
    const lost = await folderBytes(a);
    expect(JSON.parse((await teammem(["sync", "--dir", a, "--dry-run", "--json"], envA)).stdout)).toMatchObject({ ok: true, reconcile: true });
    expect(await folderBytes(a)).toEqual(lost);
  });
});
