import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { contentAfter, HookInput, memoryFolderOf, readHookInput, toolFilePath } from "./hook-input.js";

const input = (value: unknown) => HookInput.parse(value);
const stdin = (text: string) => ({ stdout: () => undefined, stderr: () => undefined, readStdin: async () => Buffer.from(text) });

describe("Claude Code hook input", () => {
  it("reads the JSON on stdin leniently, and refuses what is not a hook object without quoting it", async () => {
    expect(await readHookInput(stdin(JSON.stringify({ hook_event_name: "PostToolUse", extra: { x: 1 } })))).toMatchObject({ hook_event_name: "PostToolUse" });
    await expect(readHookInput(stdin("not json secret-ish"))).rejects.toThrow(/^--hook: the hook's input is not JSON$/);
    await expect(readHookInput(stdin("[1]"))).rejects.toThrow("not a Claude Code hook object");
    await expect(readHookInput({ stdout: () => undefined, stderr: () => undefined })).rejects.toThrow("no standard input");
  });

  it("takes the tool's file path, absolute or relative to the hook's cwd", () => {
    expect(toolFilePath(input({ tool_input: { file_path: "/a/b.md" } }))).toBe("/a/b.md");
    expect(toolFilePath(input({ cwd: "/proj", tool_input: { file_path: "x/b.md" } }))).toBe("/proj/x/b.md");
    expect(toolFilePath(input({ tool_input: {} }))).toBeUndefined();
  });

  it("computes the file after Write, Edit (first or all) and MultiEdit; an unmatched old_string appends its new_string", () => {
    expect(contentAfter(input({ tool_name: "Write", tool_input: { content: "new" } }), "old")).toBe("new");
    expect(contentAfter(input({ tool_name: "Edit", tool_input: { old_string: "a", new_string: "b" } }), "a a")).toBe("b a");
    expect(contentAfter(input({ tool_name: "Edit", tool_input: { old_string: "a", new_string: "b", replace_all: true } }), "a a")).toBe("b b");
    expect(contentAfter(input({ tool_name: "Edit", tool_input: { old_string: "a", new_string: "$&$1" } }), "a")).toBe("$&$1");
    expect(contentAfter(input({ tool_name: "Edit", tool_input: { old_string: "zz", new_string: "TOKEN" } }), "abc")).toBe("abc\nTOKEN");
    expect(
      contentAfter(input({ tool_name: "MultiEdit", tool_input: { edits: [{ old_string: "1", new_string: "2" }, { old_string: "2", new_string: "3" }] } }), "1"),
    ).toBe("3");
    expect(contentAfter(input({ tool_name: "Read", tool_input: {} }), "x")).toBeUndefined();
  });

  it("finds the memory folder set up for teammem whose team scope holds the file, and no other", async () => {
    const dir = await mkdtemp(join(tmpdir(), "teammem-hook-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await mkdir(join(dir, "mem", ".teammem"), { recursive: true });
    await writeFile(join(dir, "mem", ".teammem", "config.json"), "{}");
    expect(memoryFolderOf(join(dir, "mem", "team", "a.md"))).toBe(join(dir, "mem"));
    expect(memoryFolderOf(join(dir, "mem", "team", "new", "deep", "b.md"))).toBe(join(dir, "mem")); // folders not created yet
    expect(memoryFolderOf(join(dir, "mem", "private.md"))).toBeUndefined();
    expect(memoryFolderOf(join(dir, "mem", "teamish", "x.md"))).toBeUndefined();
    expect(memoryFolderOf(join(dir, "elsewhere", "team", "x.md"))).toBeUndefined();
  });
});
