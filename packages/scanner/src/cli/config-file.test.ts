/**
 * `teammem-scan`'s config file (issue 10): a `.teammem-scan.json` found in the current folder (a
 * cloned repository may carry one) changes what is reported, so it is never used silently: stderr
 * names it and what it allowlists and adds, and `--no-config` ignores it. A config that cannot be
 * used is exit 2 with the path and a stable code.
 */
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeGithubToken } from "../fakes.js";
import { MAX_CONFIG_FILE_BYTES } from "../config.js";
import { run } from "./run.js";

let dir: string;
const token = fakeGithubToken("ghp_", 411);
const finding = "notes.md:1:13 github-pat GitHub personal access token (classic)\n";

/** Runs the CLI in-process in `cwd` (default: the test folder) with a fixed key file. */
async function cli(args: string[], cwd = dir) {
  let stdout = "";
  let stderr = "";
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t), readStdin: () => Buffer.alloc(0) };
  const code = await run(args, { TEAMMEM_SCAN_KEY_FILE: join(dir, "key") }, io, cwd);
  return { code, stdout, stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "teammem-scan-config-"));
  writeFileSync(join(dir, "notes.md"), `deploy with ${token}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("teammem-scan config file", () => {
  it("names a .teammem-scan.json found in the current folder on stderr, with what it allowlists and adds; --no-config ignores it", async () => {
    const repo = join(dir, "cloned");
    mkdirSync(repo, { recursive: true });
    writeFileSync(join(repo, "notes.md"), `deploy with ${token}\n`);
    const plain = await cli(["--format", "json", "notes.md"], repo);
    const fp = (JSON.parse(plain.stdout) as { fingerprint: string }[])[0]!.fingerprint;
    const rule = { id: "acme-key", label: "ACME key", prefixes: ["acme_"], pattern: "acme_[a-z]{24}" };
    writeFileSync(join(repo, ".teammem-scan.json"), JSON.stringify({ allowFingerprints: [fp], customRules: [rule] }));

    // The token is allowlisted by the repository's config: not reported, but the user is told why.
    expect(await cli(["notes.md"], repo)).toEqual({
      code: 0,
      stdout: "",
      stderr: `teammem-scan: using config ${join(repo, ".teammem-scan.json")} (found in the current folder; --no-config ignores it): 1 allowlisted fingerprint (never reported), 1 custom rule added\n`,
    });
    expect(await cli(["--no-config", "notes.md"], repo)).toEqual({ code: 1, stdout: finding, stderr: "" });
    // Named explicitly: still said, with where it came from.
    writeFileSync(join(dir, "other.json"), JSON.stringify({ allowFingerprints: [fp, "ab".repeat(16)] }));
    expect(await cli(["--config", join(dir, "other.json"), "notes.md"], repo)).toMatchObject({
      code: 0,
      stderr: `teammem-scan: using config ${join(dir, "other.json")} (--config): 2 allowlisted fingerprints (never reported), 0 custom rules added\n`,
    });
    // No config anywhere: nothing said.
    expect(await cli(["notes.md"])).toEqual({ code: 1, stdout: finding, stderr: "" });
  });

  it("refuses --config together with --no-config (exit 2)", async () => {
    writeFileSync(join(dir, "empty-config.json"), "{}");
    const r = await cli(["--config", "empty-config.json", "--no-config", "notes.md"]);
    expect(r).toMatchObject({ code: 2, stdout: "", stderr: expect.stringMatching(/^teammem-scan: --config and --no-config contradict each other: give one\nusage: /) });
  });

  it.each([
    ["missing", null, "cannot read config: no such file (config_missing)"],
    ["a folder", "folder", "cannot read config: a folder, not a config file (config_not_a_file)"],
    ["under a file", "under-file", "cannot read config: a part of the path is a file, not a folder (config_not_a_file)"],
    ["empty", "", "empty, not a scanner config (a JSON object, {} at least) (config_invalid)"],
    ["binary (a NUL byte)", Buffer.from([0x7b, 0x00, 0x7d]), "binary, not a scanner config: a NUL byte (config_invalid)"],
    ["binary (not UTF-8)", Buffer.from([0x7b, 0xff, 0x7d]), "binary, not a scanner config: not UTF-8 text (config_invalid)"],
    ["not JSON", `{"allowFingerprints": [`, "not valid JSON (config_invalid)"],
    ["huge", "huge", `larger than ${MAX_CONFIG_FILE_BYTES} bytes, not a scanner config (config_too_large)`],
  ])("refuses a --config that is %s: exit 2 with the path and the code", async (what, content, message) => {
    let path = join(dir, `config-${what.replace(/\W+/g, "-")}.json`);
    if (content === "folder") mkdirSync(path);
    else if (content === "under-file") path = join(dir, "notes.md", "config.json");
    else if (content === "huge") {
      writeFileSync(path, "");
      truncateSync(path, 4 * 1024 ** 3); // sparse 4 GiB: read up to the limit only
    } else if (content !== null) writeFileSync(path, content);
    expect(await cli(["--config", path, "notes.md"])).toEqual({ code: 2, stdout: "", stderr: `teammem-scan: ${path}: ${message}\n` });
  });

  it("refuses a .teammem-scan.json found in the current folder that is not a valid config, naming it (no silent fallback)", async () => {
    const repo = join(dir, "broken");
    mkdirSync(join(repo, ".teammem-scan.json"), { recursive: true });
    expect(await cli(["--no-config", "notes.md"], repo)).toMatchObject({ code: 2, stderr: "teammem-scan: notes.md: no such file or folder\n" });
    expect(await cli([join(dir, "notes.md")], repo)).toEqual({
      code: 2,
      stdout: "",
      stderr: `teammem-scan: ${join(repo, ".teammem-scan.json")}: cannot read config: a folder, not a config file (config_not_a_file)\n`,
    });
    expect(await cli(["--no-config", join(dir, "notes.md")], repo)).toMatchObject({ code: 1 });
  });

  it("refuses a .teammem-scan.json whose custom rule backtracks catastrophically, before scanning (try20 F7)", async () => {
    // Accepted before, this rule cost ~0.4 s at each `acme_` of the scanned text: `teammem-scan .` in
    // the repository's CI never ended on 2,000 of them.
    const repo = join(dir, "redos");
    mkdirSync(repo, { recursive: true });
    writeFileSync(join(repo, "adv.txt"), `acme_${"a".repeat(61)} `.repeat(20)); // ~8 s before the fix
    const pattern = "acme_(?:a{1,4}){1,4}(?:a{1,4}){1,4}(?:a{1,4}){1,4}b";
    writeFileSync(join(repo, ".teammem-scan.json"), JSON.stringify({ customRules: [{ id: "acme-key", label: "ACME", prefixes: ["acme_"], pattern }] }));
    const r = await cli(["."], repo);
    expect(r).toMatchObject({ code: 2, stdout: "" });
    expect(r.stderr).toMatch(
      /^teammem-scan: .*\.teammem-scan\.json: invalid scanner config \(config_invalid\)\n {2}customRules\[0\]\.pattern: unsafe \(ambiguous-split\): `\(\?:a\{1,4\}\)\{1,4\}` follows or repeats other variable-width parts: a match attempt may take ~1\.1e\+8 steps/,
    );
  });

  it("finds the prefix of a custom rule with the flag i in any case, as the README's example says (try21 F2)", async () => {
    // Before: the prefix automaton compared `acme_` exactly, so `i` changed only the pattern's body
    // and `ACME_<32>` was silently missed (exit 0).
    const repo = join(dir, "case");
    mkdirSync(repo, { recursive: true });
    const rule = { id: "acme-api-key", label: "ACME API key", prefixes: ["acme_"], pattern: "acme_[A-Za-z0-9]{32}", flags: "i" };
    writeFileSync(join(repo, ".teammem-scan.json"), JSON.stringify({ customRules: [rule] }));
    const body = "Ab3".repeat(10) + "Zz";
    writeFileSync(join(repo, "keys.txt"), `k=acme_${body}
k=ACME_${body}
k=Acme_${body}
k=aCmE_${body}
`);
    const r = await cli(["--format", "json", "keys.txt"], repo);
    expect(r.code).toBe(1);
    const rows = JSON.parse(r.stdout) as { ruleId: string; line: number; column: number; preview: string }[];
    expect(rows.map(({ ruleId, line, column, preview }) => ({ ruleId, line, column, preview }))).toEqual([
      { ruleId: "acme-api-key", line: 1, column: 3, preview: "acme_****" },
      { ruleId: "acme-api-key", line: 2, column: 3, preview: "ACME_****" },
      { ruleId: "acme-api-key", line: 3, column: 3, preview: "Acme_****" },
      { ruleId: "acme-api-key", line: 4, column: 3, preview: "aCmE_****" },
    ]);
  });

  it("refuses a custom rule whose id is a catalog rule's or another custom rule's, naming both (try21 F2)", async () => {
    // Before: `github-pat` was accepted, and findings of two different rules printed the same id.
    const repo = join(dir, "dup-id");
    mkdirSync(repo, { recursive: true });
    const rule = (id: string) => ({ id, label: "mine", prefixes: ["acme_"], pattern: "acme_[a-z]{24}" });
    writeFileSync(join(repo, ".teammem-scan.json"), JSON.stringify({ customRules: [rule("github-pat"), rule("acme-key"), rule("acme-key")] }));
    expect(await cli(["notes.md"], repo)).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `teammem-scan: ${join(repo, ".teammem-scan.json")}: invalid scanner config (config_invalid)\n` +
        `  customRules[0].id: github-pat is the id of the catalog rule "GitHub personal access token (classic)": give the custom rule an id of its own\n` +
        `  customRules[2].id: acme-key is also the id of customRules[1]: give each custom rule an id of its own\n`,
    });
  });
});
