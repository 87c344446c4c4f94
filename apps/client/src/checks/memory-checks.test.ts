import { describe, expect, it } from "vitest";
import { checkTeamMemory, formatWarning, type CheckRule } from "./memory-checks.js";
import { findRelativeDates } from "./relative-dates.js";
import { readMarkdown } from "./markdown.js";

const topic = (name: string, description: string, type: string, body = "body\n") =>
  `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n${body}`;

/** A clean team memory in Claude Code's format. */
function cleanMemory(): Map<string, string> {
  return new Map([
    ["MEMORY.md", "# Team memory\n\n- [Build](build.md) — how CI builds\n- [Style](topics/style.md) — naming rules\n"],
    ["build.md", topic("build", "How CI builds and what to run before pushing", "project", "Run `make check` before pushing.\n")],
    ["topics/style.md", topic("style", "Naming rules for modules", "feedback")],
  ]);
}

const rules = (files: Map<string, string>, format: "claude-code" | "plain" = "claude-code") =>
  checkTeamMemory(files, format).map((w) => [w.path, w.line, w.rule] as [string, number | null, CheckRule]);

describe("memory checks", () => {
  it("finds nothing in a clean team memory", () => {
    expect(checkTeamMemory(cleanMemory(), "claude-code")).toEqual([]);
  });

  it("warns past 200 lines of the index, at line 201", () => {
    const files = cleanMemory();
    files.set("MEMORY.md", files.get("MEMORY.md")! + Array.from({ length: 200 }, (_, i) => `- note ${i}`).join("\n") + "\n");
    expect(rules(files)).toEqual([["team/MEMORY.md", 201, "index-too-long"]]);
    const [w] = checkTeamMemory(files, "claude-code");
    expect(w!.message).toBe("the index has 204 lines; agents read the first 200, so lines 201-204 are never seen: move detail into topic files");
  });

  it("accepts exactly 200 lines, with or without a final newline", () => {
    const files = cleanMemory();
    const lines = Array.from({ length: 196 }, (_, i) => `- note ${i}`);
    files.set("MEMORY.md", files.get("MEMORY.md")! + lines.join("\n"));
    expect(rules(files)).toEqual([]);
    files.set("MEMORY.md", files.get("MEMORY.md")! + "\n");
    expect(rules(files)).toEqual([]);
  });

  it("warns past 25,000 bytes of the index, at the line where the cut falls", () => {
    const files = cleanMemory();
    const long = "x".repeat(999);
    files.set("MEMORY.md", files.get("MEMORY.md")! + Array.from({ length: 30 }, () => `- ${long}`).join("\n") + "\n");
    const found = rules(files);
    expect(found).toEqual([["team/MEMORY.md", 29, "index-too-large"]]);
  });

  it("counts bytes, not characters, for the size limit", () => {
    const files = cleanMemory();
    files.set("MEMORY.md", files.get("MEMORY.md")! + "é".repeat(12_500) + "\n"); // 25,000 bytes of é alone
    expect(rules(files).map((r) => r[2])).toEqual(["index-too-large"]);
  });

  it("warns on index links to missing files and outside the team scope, with their lines; URLs and anchors are not files", () => {
    const files = cleanMemory();
    files.set(
      "MEMORY.md",
      files.get("MEMORY.md")! +
        "- [Gone](gone.md)\n- [Up](../private.md)\n- [Abs](/etc/x.md)\n- [Web](https://example.com/x.md) [Mail](mailto:a@b.c) [Here](#top)\n" +
        "- [Anchored](build.md#ci) [Encoded](topics/st%79le.md) [Folder](topics/)\n- [Ref][r]\n\n[r]: missing-ref.md\n",
    );
    expect(rules(files)).toEqual([
      ["team/MEMORY.md", 5, "index-broken-link"],
      ["team/MEMORY.md", 6, "index-link-outside"],
      ["team/MEMORY.md", 7, "index-link-outside"],
      ["team/MEMORY.md", 12, "index-broken-link"],
    ]);
    const [gone] = checkTeamMemory(files, "claude-code");
    expect(formatWarning(gone!)).toBe("team/MEMORY.md:5: links to team/gone.md, which does not exist: the agent believes it looked [index-broken-link]");
  });

  it("ignores links inside code blocks and inline code of the index", () => {
    const files = cleanMemory();
    files.set("MEMORY.md", files.get("MEMORY.md")! + "\n```\n[x](nope.md)\n```\n\n`[y](nope2.md)`\n");
    expect(rules(files)).toEqual([]);
  });

  it("warns on topic files the index does not mention", () => {
    const files = cleanMemory();
    files.set("orphan.md", topic("orphan", "Nobody links here", "reference"));
    files.set("notes.txt", "not markdown: not a topic\n");
    expect(rules(files)).toEqual([["team/orphan.md", null, "topic-not-indexed"]]);
  });

  it("warns when Claude Code's format has topic files and no index; a plain folder may go without", () => {
    const files = cleanMemory();
    files.delete("MEMORY.md");
    expect(rules(files)).toEqual([["team/MEMORY.md", null, "index-missing"]]);
    expect(rules(files, "plain")).toEqual([]);
  });

  it("checks name, description and type of topic frontmatter in Claude Code's format", () => {
    const files = cleanMemory();
    files.set("build.md", "# no frontmatter\n");
    files.set("topics/style.md", "---\nname: style\ndescription: |\n  two\n  lines\ntype: opinion\n---\nbody\n");
    files.set("MEMORY.md", files.get("MEMORY.md")! + "- [a](a.md) [b](b.md) [c](c.md) [d](d.md) [e](e.md)\n");
    files.set("a.md", "---\nname: a\ndescription: fine\n---\n");
    files.set("b.md", "---\nname: [1, 2]\ndescription: ''\nmetadata:\n  type: user\n---\n");
    files.set("c.md", "---\nname: c\ndescription: x\ntype: project\n"); // never closed
    files.set("d.md", "---\nname: d\n  bad: indent\n---\n");
    files.set("e.md", "---\n- a list\n---\n");
    expect(rules(files)).toEqual([
      ["team/a.md", 1, "frontmatter-type"],
      ["team/b.md", 2, "frontmatter-name"],
      ["team/b.md", 3, "frontmatter-description"],
      ["team/build.md", 1, "frontmatter-missing"],
      ["team/c.md", 1, "frontmatter-malformed"],
      ["team/d.md", 2, "frontmatter-malformed"],
      ["team/e.md", 2, "frontmatter-malformed"],
      ["team/topics/style.md", 3, "frontmatter-description"],
      ["team/topics/style.md", 6, "frontmatter-type"],
    ]);
  });

  it("checks only that frontmatter is well-formed outside Claude Code's format", () => {
    const files = new Map([
      ["MEMORY.md", "- [a](a.md) [c](c.md) [p](plain.md)\n"],
      ["a.md", "---\ntitle: no name needed\n---\n"],
      ["c.md", "---\nunclosed: yes\n"],
      ["plain.md", "no frontmatter at all\n"],
    ]);
    expect(rules(files, "plain")).toEqual([["team/c.md", 1, "frontmatter-malformed"]]);
  });

  it("flags relative dates in every team file with their line, never in code", () => {
    const files = cleanMemory();
    files.set(
      "build.md",
      topic("build", "CI", "project", "Fixed yesterday.\nDeploy freeze until next sprint; see last Thursday's notes.\n```\nsleep until tomorrow\n```\nRun `date -d yesterday`.\nThe date 2026-03-10 is fine, as is todays_build or pre-yesterday-ish.\n"),
    );
    files.set("notes.txt", "Moved 3 days ago.\n");
    expect(rules(files)).toEqual([
      ["team/build.md", 6, "relative-date"],
      ["team/build.md", 7, "relative-date"],
      ["team/build.md", 7, "relative-date"],
      ["team/notes.txt", 1, "relative-date"],
    ]);
    expect(checkTeamMemory(files, "claude-code").map((w) => w.message.split(":")[0])).toEqual([
      'relative date "yesterday"',
      'relative date "next sprint"',
      'relative date "last Thursday"',
      'relative date "3 days ago"',
    ]);
  });

  it("reads CRLF files like LF files", () => {
    const files = new Map([
      ["MEMORY.md", "# Index\r\n\r\n- [Gone](gone.md)\r\n"],
      ["x.txt", "a\r\nUpdated today\r\n"],
    ]);
    expect(rules(files, "plain")).toEqual([
      ["team/MEMORY.md", 3, "index-broken-link"],
      ["team/x.txt", 2, "relative-date"],
    ]);
  });
});

describe("findRelativeDates", () => {
  it.each([
    "yesterday",
    "Today",
    "tonight",
    "tomorrow",
    "the day before yesterday",
    "last Monday",
    "next week",
    "this sprint",
    "coming release",
    "past quarter",
    "2 weeks ago",
    "a few days ago",
    "in 3 days",
    "in a couple of weeks",
  ])("finds %j", (phrase) => {
    expect(findRelativeDates(`Something happened ${phrase}.`, new Set()).map((d) => d.phrase.toLowerCase())).toEqual([phrase.toLowerCase()]);
  });

  it.each(["2026-03-10", "todays_build", "yesterday-cache", "the week of 2026-03-09", "lastweek", "nextsprint", "monday.md"])("ignores %j", (text) => {
    expect(findRelativeDates(text, new Set())).toEqual([]);
  });

  it("skips the lines it is told are code", () => {
    const text = "prose today\n\n    indented yesterday\n"; // an indented code block (after a blank line)
    expect(findRelativeDates(text, readMarkdown(text).codeLines)).toEqual([{ line: 1, phrase: "today" }]);
  });
});
