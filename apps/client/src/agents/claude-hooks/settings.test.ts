import { lstat, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  CLAUDE_HOOKS,
  isTeammemHook,
  readSettings,
  shellQuote,
  teammemHookCommands,
  withoutTeammemHooks,
  withTeammemHooks,
  writeSettings,
  type Settings,
} from "./settings.js";

/** A user's settings with hooks of their own on the same events teammem uses. */
const theirs = (): Settings => ({
  model: "opus",
  permissions: { allow: ["Bash(npm test)"] },
  hooks: {
    PostToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: "prettier --write \"$CLAUDE_FILE\"", timeout: 30 }] }],
    SessionStart: [{ hooks: [{ type: "command", command: "echo hello" }] }],
    Stop: [{ hooks: [{ type: "command", command: "say done" }] }],
  },
});

const F = "settings.json";

describe("teammem hooks in Claude Code settings", () => {
  it("adds the three hooks after the user's own, and removing them gives back exactly the original", () => {
    const original = theirs();
    const installed = withTeammemHooks(original, "teammem", F);
    expect(installed["hooks"]).toEqual({
      PostToolUse: [
        { matcher: "Edit|Write", hooks: [{ type: "command", command: "prettier --write \"$CLAUDE_FILE\"", timeout: 30 }] },
        { matcher: "Write|Edit|MultiEdit", hooks: [{ type: "command", command: "teammem push --hook claude-code", timeout: 20 }] },
      ],
      SessionStart: [
        { hooks: [{ type: "command", command: "echo hello" }] },
        { matcher: "startup|resume", hooks: [{ type: "command", command: "teammem sync --hook claude-code", timeout: 30 }] },
      ],
      Stop: [{ hooks: [{ type: "command", command: "say done" }] }],
      PreToolUse: [{ matcher: "Write|Edit|MultiEdit", hooks: [{ type: "command", command: "teammem scan --hook claude-code", timeout: 10 }] }],
    });
    expect(installed["model"]).toBe("opus");
    expect(withoutTeammemHooks(installed, F)).toEqual(original);
    expect(original).toEqual(theirs()); // inputs are never changed
  });

  it("is idempotent: installing again (even with another command) leaves one set", () => {
    const once = withTeammemHooks(theirs(), "teammem", F);
    expect(withTeammemHooks(once, "teammem", F)).toEqual(once);
    const moved = withTeammemHooks(once, "'/opt/node' '/opt/teammem.js'", F);
    expect(teammemHookCommands(moved)).toEqual([
      "'/opt/node' '/opt/teammem.js' push --hook claude-code",
      "'/opt/node' '/opt/teammem.js' sync --hook claude-code",
      "'/opt/node' '/opt/teammem.js' scan --hook claude-code",
    ]);
  });

  it("works on empty settings and removes what it added, down to no hooks key", () => {
    const installed = withTeammemHooks({}, "teammem", F);
    expect(Object.keys(installed["hooks"] as object).sort()).toEqual(["PostToolUse", "PreToolUse", "SessionStart"]);
    expect(withoutTeammemHooks(installed, F)).toEqual({});
  });

  it("keeps a user's hook that shares a matcher group with a teammem hook, and empty lists the user had", () => {
    const mixed: Settings = {
      hooks: {
        PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "teammem push --hook claude-code" }, { type: "command", command: "mine" }] }],
        Notification: [],
      },
    };
    expect(withoutTeammemHooks(mixed, F)).toEqual({ hooks: { PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: "mine" }] }], Notification: [] } });
  });

  it("recognises the commands teammem writes, whatever runs teammem, and nothing else", () => {
    expect(isTeammemHook({ type: "command", command: "teammem sync --hook claude-code" })).toBe(true);
    expect(isTeammemHook({ type: "command", command: "/usr/bin/node /x/dist/cli.js push --hook claude-code" })).toBe(true);
    expect(isTeammemHook({ type: "command", command: "npx --no teammem scan --hook claude-code " })).toBe(true);
    expect(isTeammemHook({ type: "command", command: "teammem sync" })).toBe(false);
    expect(isTeammemHook({ type: "command", command: "other --hook claude-code" })).toBe(false);
    expect(isTeammemHook({ type: "command", command: "teammem sync --hook claude-code && rm -rf x" })).toBe(false);
    expect(isTeammemHook(null)).toBe(false);
  });

  it("refuses to merge into hooks of a shape it does not know, naming the file", () => {
    expect(() => withTeammemHooks({ hooks: [] }, "teammem", F)).toThrow('settings.json: "hooks" is not an object');
    expect(() => withTeammemHooks({ hooks: { PostToolUse: {} } }, "teammem", F)).toThrow("hooks.PostToolUse is not a list");
  });

  it("quotes executables for sh", () => {
    expect(shellQuote("teammem")).toBe("teammem");
    expect(shellQuote("/home/ann/my tools/teammem")).toBe("'/home/ann/my tools/teammem'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it("describes every hook with a bounded timeout", () => {
    for (const h of CLAUDE_HOOKS) expect(h.timeoutSeconds).toBeLessThanOrEqual(30);
  });
});

describe("settings files", () => {
  async function folder() {
    const dir = await mkdtemp(join(tmpdir(), "teammem-settings-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  it("reads a missing or empty file as {}, refuses non-JSON and non-objects", async () => {
    const dir = await folder();
    expect(await readSettings(join(dir, "none.json"))).toEqual({});
    await writeFile(join(dir, "empty.json"), "  \n");
    expect(await readSettings(join(dir, "empty.json"))).toEqual({});
    await writeFile(join(dir, "bad.json"), "{ // comment\n}");
    await expect(readSettings(join(dir, "bad.json"))).rejects.toThrow("is not valid JSON");
    await writeFile(join(dir, "list.json"), "[]");
    await expect(readSettings(join(dir, "list.json"))).rejects.toThrow("does not hold a JSON object");
  });

  it("writes 2-space JSON, keeps the file's mode, writes through a symlink, and reports an unchanged file", async () => {
    const dir = await folder();
    const real = join(dir, "dotfiles-settings.json");
    await writeFile(real, "{}\n");
    await chmod(real, 0o600);
    const link = join(dir, "settings.json");
    await symlink(real, link);
    expect(await writeSettings(link, { a: 1 })).toBe(true);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(real);
    expect(await readFile(real, "utf8")).toBe('{\n  "a": 1\n}\n');
    expect((await stat(real)).mode & 0o777).toBe(0o600);
    expect(await writeSettings(link, { a: 1 })).toBe(false);
    expect(await writeSettings(join(dir, "new", "settings.json"), {})).toBe(true);
  });
});
