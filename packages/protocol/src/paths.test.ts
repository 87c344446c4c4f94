import { describe, expect, it } from "vitest";
import { checkEntryPath, pathFoldKey } from "./paths.js";

describe("checkEntryPath", () => {
  it("says why a leading letter and colon is refused (a Windows drive), not that the path is absolute (try14 F14)", () => {
    expect(checkEntryPath("a:b.md")).toEqual({ ok: false, rule: "absolute", message: expect.stringContaining("on Windows that names a drive") });
    expect(checkEntryPath("notes/a:b.md")).toEqual({ ok: true, path: "notes/a:b.md" }); // a colon elsewhere is accepted
  });

  it.each([
    ["team/conventions.md", "team/conventions.md"],
    ["a/b/c.md", "a/b/c.md"],
    [".cursorrules", ".cursorrules"],
    [".github/copilot-instructions.md", ".github/copilot-instructions.md"],
    ["notes/.gitignore", "notes/.gitignore"],
    ["caf\u0065\u0301.md", "caf\u00e9.md"], // NFD input is stored NFC
    ["日本語/メモ.md", "日本語/メモ.md"],
  ])("accepts %j as %j", (raw, path) => {
    expect(checkEntryPath(raw)).toEqual({ ok: true, path });
  });

  it.each([
    ["", "empty"],
    ["../x", "dot_segment"],
    ["a/../x", "dot_segment"],
    ["./x", "dot_segment"],
    ["/etc/passwd", "absolute"],
    ["C:/x", "absolute"],
    ["a\\b", "backslash"],
    ["a\u0000b", "control_character"],
    ["a\nb", "control_character"],
    ["a\u007fb", "control_character"],
    ["a//b", "empty_segment"],
    ["a/", "trailing_slash"],
    ["x".repeat(256), "segment_too_long"],
    ["é".repeat(128), "segment_too_long"], // 256 UTF-8 bytes in 128 characters
    [Array.from({ length: 5 }, () => "x".repeat(250)).join("/"), "path_too_long"],
    [".git/config", "reserved_segment"],
    ["sub/.GIT/hooks/pre-commit", "reserved_segment"],
    ["notes/.teammem", "reserved_segment"],
    [".teammem/config.json", "reserved_segment"],
    [".teammem-tmp-1234", "reserved_segment"],
  ])("refuses %j by rule %s", (raw, rule) => {
    const result = checkEntryPath(raw);
    expect(result).toMatchObject({ ok: false, rule });
    expect(result.ok === false && result.message.length).toBeGreaterThan(0);
  });
});

describe("pathFoldKey", () => {
  it("gives paths that differ only by case or normalisation the same key", () => {
    expect(pathFoldKey("Team/README.md")).toBe(pathFoldKey("team/readme.md"));
    expect(pathFoldKey("caf\u0065\u0301.md")).toBe(pathFoldKey("CAF\u00c9.md"));
    expect(pathFoldKey("a.md")).not.toBe(pathFoldKey("b.md"));
  });
});
