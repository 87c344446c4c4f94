import { describe, expect, it } from "vitest";
import { BIDI_CONTROL_RANGES as SCANNER_BIDI_CONTROL_RANGES, INVISIBLE_RANGES as SCANNER_INVISIBLE_RANGES } from "@teammem/scanner/invisible-characters";
import { BIDI_CONTROL_RANGES, INVISIBLE_RANGES } from "./invisible-characters.js";
import { checkEntryPath, checkExistingEntryPath, pathFoldKey, windowsReservedCharacter } from "./paths.js";

describe("checkEntryPath", () => {
  it("says why a leading letter and colon is refused (a Windows drive), not that the path is absolute (try14 F14)", () => {
    expect(checkEntryPath("a:b.md")).toEqual({ ok: false, rule: "absolute", message: expect.stringContaining("on Windows that names a drive") });
    // A colon elsewhere is refused for a new name only (try18 F11), as every character Windows does not allow.
    expect(checkEntryPath("notes/a:b.md")).toMatchObject({ ok: false, rule: "windows_reserved_character" });
    expect(checkExistingEntryPath("notes/a:b.md")).toEqual({ ok: true, path: "notes/a:b.md" });
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

describe("checkEntryPath of invisible characters (try17 M4)", () => {
  it("uses the scanner's tables, so entry paths refuse exactly what the scanner removes (one table, checked against Unicode in the scanner's invisible-characters.test.ts)", () => {
    expect(INVISIBLE_RANGES).toBe(SCANNER_INVISIBLE_RANGES);
    expect(BIDI_CONTROL_RANGES).toBe(SCANNER_BIDI_CONTROL_RANGES);
    for (const [from, to] of INVISIBLE_RANGES) for (const cp of new Set([from, to])) expect(checkEntryPath(`a${String.fromCodePoint(cp)}.md`)).toMatchObject({ ok: false });
  });

  it("refuses a Trojan-Source name with a message naming the code point", () => {
    expect(checkEntryPath(`a/team/${String.fromCodePoint(0x202e)}evil.md`)).toEqual({
      ok: false,
      rule: "bidi_control",
      message: expect.stringContaining("holds U+202E RIGHT-TO-LEFT OVERRIDE, a bidi control"),
    });
    expect(checkEntryPath(`a${String.fromCodePoint(0x200b)}.md`)).toEqual({
      ok: false,
      rule: "invisible_character",
      message: expect.stringContaining("holds U+200B ZERO WIDTH SPACE, an invisible character"),
    });
    expect(checkEntryPath(`a${String.fromCodePoint(0xfe0f)}.md`)).toMatchObject({ message: expect.stringContaining("U+FE0F VARIATION SELECTOR-16") });
    expect(checkEntryPath(`a${String.fromCodePoint(0xe0041)}.md`)).toMatchObject({ message: expect.stringContaining("U+E0041 TAG 'A'") });
  });

  // Every range of the brief, first and last code point, each in a segment of its own and in the middle of a name.
  const bidiRanges: [number, number][] = [[0x61c, 0x61c], [0x200e, 0x200f], [0x202a, 0x202e], [0x2066, 0x2069]];
  const otherRanges: [number, number][] = [
    [0xad, 0xad], [0x34f, 0x34f], [0x115f, 0x1160], [0x17b4, 0x17b5], [0x180b, 0x180f], [0x200b, 0x200d], [0x2060, 0x2065],
    [0x206a, 0x206f], [0x3164, 0x3164], [0xfe00, 0xfe0f], [0xfeff, 0xfeff], [0xffa0, 0xffa0], [0xfff0, 0xfff8],
    [0x1bca0, 0x1bca3], [0x1d173, 0x1d17a], [0xe0000, 0xe0fff],
  ];
  const cases = (ranges: [number, number][], rule: string): [string, string][] =>
    ranges.flatMap(([a, b]) => [...new Set([a, b])].map((cp): [string, string] => [cp.toString(16).toUpperCase().padStart(4, "0"), rule]));
  it.each([...cases(bidiRanges, "bidi_control"), ...cases(otherRanges, "invisible_character")])("refuses U+%s by rule %s, and only for a new name", (hex, rule) => {
    const ch = String.fromCodePoint(parseInt(hex, 16));
    for (const raw of [`notes/a${ch}b.md`, `${ch}/x.md`, `x${ch}`]) {
      const result = checkEntryPath(raw);
      expect(result).toMatchObject({ ok: false, rule });
      expect(result.ok === false && result.message).toContain(`holds U+${hex}`);
      expect(checkExistingEntryPath(raw)).toEqual({ ok: true, path: raw.normalize("NFC") }); // an entry stored before stays reachable
    }
  });

  it.each([
    ["private use", String.fromCodePoint(0xe000)],
    ["supplementary private use", String.fromCodePoint(0xf0000)],
    ["a visible emoji with no variation selector", "\u{1f600}"],
    ["Hebrew letters (right-to-left text, no control)", "\u05e9\u05dc\u05d5\u05dd"],
    ["no-break space", "\u00a0"],
  ])("accepts %s", (_label, text) => {
    expect(checkEntryPath(`notes/${text}.md`)).toEqual({ ok: true, path: `notes/${text}.md` });
  });

  it("keeps every other rule for an existing name", () => {
    expect(checkExistingEntryPath("../x")).toMatchObject({ ok: false, rule: "dot_segment" });
    expect(checkExistingEntryPath("a\u0000b")).toMatchObject({ ok: false, rule: "control_character" });
    expect(checkExistingEntryPath(".git/config")).toMatchObject({ ok: false, rule: "reserved_segment" });
  });
});

describe("pathFoldKey", () => {
  it("gives paths that differ only by case or normalisation the same key", () => {
    expect(pathFoldKey("Team/README.md")).toBe(pathFoldKey("team/readme.md"));
    expect(pathFoldKey("caf\u0065\u0301.md")).toBe(pathFoldKey("CAF\u00c9.md"));
    expect(pathFoldKey("a.md")).not.toBe(pathFoldKey("b.md"));
  });
});

describe("checkEntryPath of names Windows cannot create (try17 L3)", () => {
  it.each([
    ["CON.md", "windows_device_name", "CON"],
    ["con", "windows_device_name", "CON"],
    ["notes/Nul.tar.gz", "windows_device_name", "NUL"],
    ["aux/x.md", "windows_device_name", "AUX"], // a folder too
    ["PRN .md", "windows_device_name", "PRN"], // spaces before the extension are dropped
    ["com1.md", "windows_device_name", "COM1"],
    ["COM9", "windows_device_name", "COM9"],
    ["lpt5.txt", "windows_device_name", "LPT5"],
    ["LPT\u00b9.md", "windows_device_name", "LPT\u00b9"],
    ["trail.", "trailing_dot_or_space", "a dot"],
    ["trail ", "trailing_dot_or_space", "a space"],
    ["notes./a.md", "trailing_dot_or_space", "a dot"],
    ["a b /c.md", "trailing_dot_or_space", "a space"],
    ["...", "trailing_dot_or_space", "a dot"],
  ])("refuses %j by rule %s (%s) for a new name only", (raw, rule, named) => {
    const result = checkEntryPath(raw);
    expect(result).toMatchObject({ ok: false, rule });
    expect(result.ok === false && result.message).toContain(named);
    expect(result.ok === false && result.message).toContain("a teammate on Windows could not write it");
    expect(checkExistingEntryPath(raw)).toEqual({ ok: true, path: raw }); // an entry stored before stays reachable
  });

  it.each(["CONSOLE.md", "con-notes.md", "icon.md", "COM10.md", "lpt.md", "nul_.md", "trail .md", " lead.md", ".hidden", "a.b.c", "notes/auxiliary/x.md"])(
    "accepts %j",
    (raw) => expect(checkEntryPath(raw)).toEqual({ ok: true, path: raw }),
  );
});

describe("checkEntryPath of names holding a character Windows does not allow (try18 F11)", () => {
  it.each([":", "*", "?", "<", ">", "|", '"'])("refuses %j in a file or folder name for a new name only", (ch) => {
    for (const raw of [`notes/a${ch}b.md`, `what${ch}`, `dir${ch}/x.md`, `notes/${ch}`]) {
      expect(checkEntryPath(raw)).toEqual({
        ok: false,
        rule: "windows_reserved_character",
        message: `path holds '${ch}', a character Windows does not allow in file names (: * ? < > | "): a teammate on Windows could not write it; rename it`,
      });
      expect(checkExistingEntryPath(raw)).toEqual({ ok: true, path: raw }); // an entry stored before stays reachable
    }
    expect(windowsReservedCharacter(`a${ch}b`)).toBe(ch);
  });

  it("names the first reserved character of the segment", () => {
    expect(windowsReservedCharacter('a|b"c')).toBe("|");
    expect(windowsReservedCharacter("plain name.md")).toBeNull();
  });

  it("keeps a drive-letter name absolute for every name, and control characters refused for every name", () => {
    expect(checkEntryPath("a:b.md")).toMatchObject({ ok: false, rule: "absolute" });
    expect(checkExistingEntryPath("a:b.md")).toMatchObject({ ok: false, rule: "absolute" });
    for (let c = 0; c < 0x20; c++) expect(checkExistingEntryPath(`a${String.fromCharCode(c)}b.md`)).toMatchObject({ ok: false, rule: "control_character" });
  });

  it.each(["a;b.md", "a=b.md", "a&b.md", "a#b.md", "a%b.md", "a'b.md", "a[1].md", "a{b}.md", "a+b,c.md", "a!b.md", "a~b.md", "a@b.md", "a$b.md", "a^b.md", "a`b.md", "\uff1a\uff1f.md"])(
    "accepts %j (allowed on Windows)",
    (raw) => expect(checkEntryPath(raw)).toEqual({ ok: true, path: raw }),
  );
});
