/**
 * try21 F1: whenever `status` did not ask the server (no token, `--offline`, a token refused here,
 * the server not reached), its human output says so and why in every branch, also above held-back,
 * rejected or queued files (before, that branch said nothing about the server, reading as if it
 * had been asked). A token refused here is the usage error `sync` exits 2 with, in `status` too
 * (it exited 0); a pasted `Bearer <token>` is taken as the token by every command.
 */
import { readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { teammem, tempDir } from "../support/cli.js";
import { setup, sync } from "../support/clients.js";

const WHITESPACE = "contains whitespace (a teammem token has none: was a space or line break pasted with it?)";
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("status says the server was not checked, and why, whatever it lists", () => {
  it("no token, --offline, a token with whitespace, a server not reached: the line heads the held-back list; the bad token exits 2 as in sync", async () => {
    const { server, a, envA } = await setup("pglite");
    await writeFile(join(a, "team", "ok.md"), "fine\n");
    await writeFile(join(a, "team", "key.md"), `deploy with ${fakeGithubPat()}\n`);
    expect((await sync(a, envA)).code).not.toBe(2);
    const heldBack = "held back (secret found; ";
    const headed = (line: string) => new RegExp(`^namespace acme-web at \\S+; cursor \\d+\\n${line}\\n${escape(heldBack)}.*\\n {2}team/key\\.md:1 github-pat `);
    const asOf = "as of the last sync at \\S+:";

    const noToken = await teammem(["status", "--dir", a], {});
    expect(noToken).toMatchObject({ code: 0, stderr: "" });
    expect(noToken.stdout).toMatch(headed(`not checked with the server: ${escape("no token (--token, TEAMMEM_TOKEN or teammem init --token)")}; ${asOf}`));

    const offline = await teammem(["status", "--dir", a, "--offline"], envA);
    expect(offline).toMatchObject({ code: 0, stderr: "" });
    expect(offline.stdout).toMatch(headed(`not checked with the server: --offline; ${asOf}`));

    // A token with whitespace: status shows the local state, says why the server was not asked, and exits 2 like sync.
    const spaced = { TEAMMEM_TOKEN: `${envA.TEAMMEM_TOKEN} x` };
    const bad = await teammem(["status", "--dir", a], spaced);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(headed(`not checked with the server: ${escape(`the token from TEAMMEM_TOKEN ${WHITESPACE}`)}; ${asOf}`));
    expect(bad.stderr).toBe(`teammem: the token from TEAMMEM_TOKEN ${WHITESPACE}; the status above is local state only [usage_error]\n`);
    const badJson = await teammem(["status", "--dir", a, "--json"], spaced);
    expect(badJson.code).toBe(2);
    expect(JSON.parse(badJson.stdout).serverCheck).toEqual({
      checked: false,
      reachable: null,
      reconcilePending: null,
      error: `the token from TEAMMEM_TOKEN ${WHITESPACE}`,
      code: "usage_error",
    });
    const badSync = await sync(a, spaced);
    expect(badSync.code).toBe(2);
    expect(badSync.stderr).toContain(`the token from TEAMMEM_TOKEN ${WHITESPACE}`);
    // --offline reads no token: nothing refused.
    expect((await teammem(["status", "--dir", a, "--offline"], spaced)).code).toBe(0);

    await server.stop();
    const down = await teammem(["status", "--dir", a], envA);
    expect(down.code).toBe(0);
    expect(down.stdout).toMatch(headed(`server not reached: .+; ${asOf}`));
  }, 300_000);

  it("nothing listed: one line saying the server was not checked, why, and as of when (or never synced)", async () => {
    const { a, envA } = await setup("pglite");
    const fresh = await teammem(["status", "--dir", a], {});
    expect(fresh.stdout).toMatch(/^namespace acme-web at \S+; cursor 0\nnot checked with the server: no token \(--token, TEAMMEM_TOKEN or teammem init --token\); never synced: nothing pending here\n$/);
    expect((await sync(a, envA)).code).toBe(0);
    const offline = await teammem(["status", "--dir", a, "--offline"], envA);
    expect(offline.stdout).toMatch(/^namespace acme-web at \S+; cursor \d+\nnot checked with the server: --offline; as of the last sync at \S+: everything synced\n$/);
  }, 300_000);
});

describe("a pasted `Bearer <token>` is the token, for every command", () => {
  it("sync, status, doctor and init take the token after the scheme (any case); init stores it bare", async () => {
    const { server, a, envA } = await setup("pglite");
    await writeFile(join(a, "team", "note.md"), "v1\n");
    const bearer = { TEAMMEM_TOKEN: `Bearer ${envA.TEAMMEM_TOKEN}` };
    expect(await sync(a, bearer)).toMatchObject({ code: 0, stderr: "" });
    const status = await teammem(["status", "--dir", a, "--json"], bearer);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).serverCheck).toMatchObject({ checked: true, reachable: true, reconcilePending: false });
    expect((await teammem(["status", "--dir", a, "--token", `bearer ${envA.TEAMMEM_TOKEN}`])).stdout).toContain("\neverything synced\n");
    expect((await teammem(["doctor", "--dir", a], bearer)).code).toBe(0);

    const root = await tempDir();
    const c = join(root.path, "c");
    const tokenC = await server.token("carol");
    expect((await teammem(["init", "--dir", c, "--server", server.url, "--namespace", "acme-web", "--token", `BEARER\t${tokenC}`])).code).toBe(0);
    expect(JSON.parse(await readFile(join(c, ".teammem", "config.json"), "utf8")).token).toBe(tokenC);
    expect((await sync(c, {})).code).toBe(0);
    await root.remove();
  }, 300_000);
});

describe("the agent hooks say why a token cannot be used", () => {
  it("a TEAMMEM_TOKEN with whitespace is named as such, not as 'no token'; a Bearer one pushes", async () => {
    const { a, envA } = await setup("pglite");
    const memory = await realpath(a);
    await writeFile(join(memory, "team", "build.md"), "Run make check.\n");
    const stdin = JSON.stringify({ session_id: "s", cwd: memory, hook_event_name: "PostToolUse", tool_name: "Write", tool_input: { file_path: join(memory, "team", "build.md") } });
    const push = (env: Record<string, string>) => teammem(["push", "--hook", "claude-code"], env, { stdin, cwd: memory });
    expect(await push({ TEAMMEM_TOKEN: `${envA.TEAMMEM_TOKEN} x` })).toEqual({
      code: 0,
      stdout: "",
      stderr: `teammem hook: ${memory}: the token from TEAMMEM_TOKEN ${WHITESPACE}; the next sync sends the file\n`,
    });
    expect(await push({})).toMatchObject({ code: 0, stderr: `teammem hook: no token for ${memory} (set TEAMMEM_TOKEN or run teammem init --token); the next sync sends the file\n` });
    expect(await push({ TEAMMEM_TOKEN: `Bearer ${envA.TEAMMEM_TOKEN}` })).toMatchObject({ code: 0, stdout: "teammem: pushed team/build.md\n", stderr: "" });
  }, 300_000);
});
