/**
 * try17 L8: Claude Code's PreToolUse and PostToolUse hooks (`teammem scan|push --hook claude-code`)
 * classify a tool's file by where the write lands, through symlinks: a path through a folder
 * linked to the memory folder's team/ is a team file (scanned, refused with its entry path), and a
 * team file that is itself a symlink to a file elsewhere is not (the sync does not follow it).
 */
import { mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { teammem, tempDir } from "../support/cli.js";
import { dumpAllRows, startTestServer, type TestServer } from "../support/server.js";

describe("the agent hooks through symlinks", () => {
  let server: TestServer;
  let root: { path: string; remove: () => Promise<void> };
  let memory: string;
  let base: string;
  let env: Record<string, string>;
  const secret = fakeGithubPat(8);
  const tool = (name: string, toolInput: object) => JSON.stringify({ session_id: "s", cwd: base, hook_event_name: "PreToolUse", tool_name: name, tool_input: toolInput });
  const preWrite = (toolInput: object) => teammem(["scan", "--hook", "claude-code"], env, { stdin: tool("Write", toolInput), cwd: base });

  beforeAll(async () => {
    server = await startTestServer("postgres");
    root = await tempDir("teammem-hook-links-");
    base = await realpath(root.path);
    memory = join(base, "memory");
    env = { TEAMMEM_TOKEN: await server.token("ann") };
    expect((await teammem(["init", "--dir", memory, "--server", server.url, "--namespace", "acme/links"], env)).code).toBe(0);
    await symlink(join(memory, "team"), join(memory, "shortcut")); // a private-looking name for team/
    await symlink(join(memory, "team"), join(base, "team-link")); // from outside the memory folder
  });
  afterAll(async () => {
    await server?.dispose();
    await root?.remove();
  });

  it("refuses a credential written through a folder linked to team/, naming the entry it would land on", async () => {
    for (const file of [join(memory, "shortcut", "deploy.md"), join(base, "team-link", "deploy.md"), join(memory, "shortcut", "new", "deep.md")]) {
      const refused = await preWrite({ file_path: file, content: `# Deploy\nGITHUB_TOKEN=${secret}\n` });
      expect([file, refused.code]).toEqual([file, 2]);
      expect(refused.stderr).toMatch(/team\/(deploy|new\/deep)\.md:2:github-pat/);
      expect(refused.stdout + refused.stderr).not.toContain(secret);
    }
    // the same write to a private file is let through: it never leaves the machine
    expect((await preWrite({ file_path: join(memory, "notes.md"), content: secret })).code).toBe(0);
  });

  it("lets a write through a team file that links elsewhere: it lands outside team/ and is never synced", async () => {
    await writeFile(join(base, "outside.md"), "outside\n");
    await symlink(join(base, "outside.md"), join(memory, "team", "outside.md"));
    expect((await preWrite({ file_path: join(memory, "team", "outside.md"), content: secret })).code).toBe(0);
  });

  it("pushes a team file the agent wrote through a linked folder (PostToolUse)", async () => {
    await mkdir(join(memory, "team", "notes"), { recursive: true });
    await writeFile(join(memory, "team", "notes", "build.md"), "Run make check.\n");
    const stdin = JSON.stringify({ session_id: "s", cwd: base, hook_event_name: "PostToolUse", tool_name: "Write", tool_input: { file_path: join(base, "team-link", "notes", "build.md") } });
    const pushed = await teammem(["push", "--hook", "claude-code"], env, { stdin, cwd: base });
    expect([pushed.code, pushed.stdout, pushed.stderr]).toEqual([0, "teammem: pushed team/notes/build.md\n", ""]);
    expect(await dumpAllRows(server.database)).toContain("Run make check.");
  });
});
