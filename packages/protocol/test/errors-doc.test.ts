import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ERRORS } from "../src/errors.js";

const doc = () => readFile(new URL("../ERRORS.md", import.meta.url), "utf8");

describe("ERRORS.md", () => {
  it("documents every error code of the registry and documents nothing else", async () => {
    const documented = [...(await doc()).matchAll(/^### ([a-z0-9_]+)$/gm)].map((m) => m[1]);
    expect([...documented].sort()).toEqual(Object.keys(ERRORS).sort());
  });

  it("states the HTTP status and retry flag of each code as the registry does", async () => {
    const text = await doc();
    for (const [code, { http, retry }] of Object.entries(ERRORS)) {
      const section = text.split(`### ${code}\n`)[1]?.split("\n### ")[0] ?? "";
      expect(section, code).toContain(`HTTP ${http}, retry: ${retry ? "yes" : "no"}.`);
    }
  });
});
