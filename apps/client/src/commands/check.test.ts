/** `teammem check` and the warnings of `status` (issue 13). */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { run } from "../program.js";

async function teammem(argv: string[]) {
  const out = { code: 0, stdout: "", stderr: "" };
  out.code = await run(argv, {}, { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t) }, tmpdir());
  return out;
}

async function memoryFolder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "teammem-check-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

describe("teammem check", () => {
  it("prints each warning as path:line: message [rule] and exits 0; --strict exits 1", async () => {
    const dir = await memoryFolder({
      "team/MEMORY.md": "# Index\n- [Build](build.md)\n- [Gone](gone.md)\n",
      "team/build.md": "Fixed yesterday.\n",
      "team/orphan.md": "nobody links here\n",
      "private/diary.md": "yesterday I wrote [x](nope.md)\n", // private: never read
    });
    const r = await teammem(["check", "--dir", dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "team/MEMORY.md:3: links to team/gone.md, which does not exist: the agent believes it looked [index-broken-link]",
        'team/build.md:1: relative date "yesterday": a teammate reads this on another day; write the date (e.g. 2026-03-10) [relative-date]',
        "team/orphan.md: not mentioned in team/MEMORY.md: agents never open it; add a line linking to it [topic-not-indexed]",
        "",
      ].join("\n"),
    );
    expect(r.stderr).toBe("teammem: 3 warning(s) in 3 team file(s); warnings never block a sync (--strict makes them fail)\n");
    const strict = await teammem(["check", "--dir", dir, "--strict"]);
    expect([strict.code, strict.stderr]).toEqual([1, expect.stringContaining("(--strict: failing)")]);
    const json = JSON.parse((await teammem(["check", "--dir", dir, "--json", "--strict"])).stdout);
    expect(json).toMatchObject({ ok: false, files: 3 });
    expect(json.warnings.map((w: { rule: string }) => w.rule)).toEqual(["index-broken-link", "relative-date", "topic-not-indexed"]);
  });

  it("exits 0 with no warnings for clean memory, also with --strict", async () => {
    const dir = await memoryFolder({ "team/MEMORY.md": "- [a](a.md)\n", "team/a.md": "fine on 2026-03-10\n" });
    expect(await teammem(["check", "--dir", dir, "--strict"])).toEqual({ code: 0, stdout: "", stderr: "teammem: 2 team file(s) checked, no warnings\n" });
  });

  it("requires Claude Code's frontmatter only in a Claude Code folder", async () => {
    const dir = await memoryFolder({ "team/MEMORY.md": "- [a](a.md)\n", "team/a.md": "no frontmatter\n" });
    expect((await teammem(["check", "--dir", dir])).stdout).toBe("");
    expect((await teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:4", "--offline", "--namespace", "acme/web"])).code).toBe(0);
    const config = JSON.parse(await readFile(join(dir, ".teammem", "config.json"), "utf8"));
    await writeFile(join(dir, ".teammem", "config.json"), JSON.stringify({ ...config, agent: "claude-code" }));
    expect((await teammem(["check", "--dir", dir])).stdout).toContain("team/a.md:1: no frontmatter");
  });

  it("exits 2 when there is no team/ folder to check", async () => {
    const dir = await memoryFolder({ "notes.md": "x\n" });
    const r = await teammem(["check", "--dir", dir]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining("team is missing: nothing to check")]);
  });
});

describe("teammem status", () => {
  it("shows the memory warnings, in text and JSON, after the sync state", async () => {
    const dir = await memoryFolder({ "team/MEMORY.md": "- [Gone](gone.md)\n" });
    expect((await teammem(["init", "--dir", dir, "--server", "http://127.0.0.1:4", "--offline", "--namespace", "acme/web"])).code).toBe(0);
    const text = await teammem(["status", "--dir", dir]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "memory warnings (teammem check; they never block a sync):\n  team/MEMORY.md:1: links to team/gone.md, which does not exist",
    );
    const json = JSON.parse((await teammem(["status", "--dir", dir, "--json"])).stdout);
    expect(json.warnings).toEqual([
      { path: "team/MEMORY.md", line: 1, rule: "index-broken-link", message: expect.stringContaining("team/gone.md") },
    ]);
  });
});
