import { describe, expect, it } from "vitest";
import { mergePolicies } from "./policy.js";

describe("merge policy rules", () => {
  it("unites Markdown files by default at any depth and conflicts on others", () => {
    const policy = mergePolicies();
    expect(["MEMORY.md", "CLAUDE.md", "sub/AGENTS.md", "topics/build.MD", "notes.json", "a.yaml", "README"].map(policy)).toEqual([
      "union",
      "union",
      "union",
      "union",
      "conflict",
      "conflict",
      "conflict",
    ]);
  });
  it("checks the configured rules first, in order; a pattern with a slash matches from the team folder", () => {
    const policy = mergePolicies([
      { pattern: "decisions/**", policy: "conflict" },
      { pattern: "*.log", policy: "union" },
    ]);
    expect(policy("decisions/2026/db.md")).toBe("conflict");
    expect(policy("other/decisions/db.md")).toBe("union");
    expect(policy("build.log")).toBe("union");
    expect(policy("deep/er/build.log")).toBe("union");
  });
});
