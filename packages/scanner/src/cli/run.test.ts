import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { fakeGithubToken, randomChars } from "../fakes.js";
import { MAX_SCAN_FILE_BYTES } from "../text-file.js";
import { EXIT_NOT_SCANNED, run } from "./run.js";

let dir: string;
const token = fakeGithubToken("ghp_", 101);
const token2 = fakeGithubToken("ghp_", 102);

/** Runs the CLI in-process in `dir` with `stdin`; returns exit code and captured output. */
async function cli(args: string[], stdin = "") {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (t: string) => void (stdout += t),
    stderr: (t: string) => void (stderr += t),
    readStdin: () => Buffer.from(stdin),
  };
  const code = await run(args, { TEAMMEM_SCAN_KEY_FILE: join(dir, "key") }, io, dir);
  return { code, stdout, stderr };
}

/** {@link cli} with stdin given as bytes. */
async function cliBytes(args: string[], stdin: Buffer) {
  let stdout = "";
  const io = { stdout: (t: string) => void (stdout += t), stderr: () => undefined, readStdin: () => stdin };
  const code = await run(args, { TEAMMEM_SCAN_KEY_FILE: join(dir, "key") }, io, dir);
  return { code, stdout };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "teammem-scan-cli-"));
  mkdirSync(join(dir, "tree/sub"), { recursive: true });
  mkdirSync(join(dir, "tree/.git"), { recursive: true });
  mkdirSync(join(dir, "tree/node_modules/x"), { recursive: true });
  writeFileSync(join(dir, "tree/sub/notes.md"), `# Notes\n\nGITHUB_TOKEN=${token}\n`);
  writeFileSync(join(dir, "tree/.git/config"), `token ${token2}\n`);
  writeFileSync(join(dir, "tree/node_modules/x/README.md"), `token ${token2}\n`);
  writeFileSync(join(dir, "tree/blob.bin"), Buffer.concat([Buffer.from([0x00, 0x01]), Buffer.from(token2)]));
  writeFileSync(join(dir, "clean.md"), "nothing to see\n");
});

describe("teammem-scan", () => {
  it("prints path:line:column ruleId label and exits 1 on findings; skips .git, node_modules and binaries", async () => {
    const r = await cli(["tree"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`${join("tree", "sub", "notes.md")}:3:14 github-pat GitHub personal access token (classic)\n`);
    expect(r.stdout + r.stderr).not.toContain(token.slice(4));
  });

  it("reads and scans a file or folder whose name is not UTF-8 (shown with U+FFFD), instead of failing to open it", async () => {
    const root = Buffer.from(join(dir, "bytes"));
    const name = Buffer.from([0x62, 0x61, 0x64, 0xff]); // "bad" + a byte that is not UTF-8
    mkdirSync(Buffer.concat([root, Buffer.from("/sub"), name]), { recursive: true });
    writeFileSync(Buffer.concat([root, Buffer.from("/"), name, Buffer.from(".md")]), `key ${token}\n`);
    writeFileSync(Buffer.concat([root, Buffer.from("/sub"), name, Buffer.from("/notes.md")]), `key ${token2}\n`);
    const r = await cli(["bytes"]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 1,
      stdout:
        `${join("bytes", "bad\ufffd.md")}:1:5 github-pat GitHub personal access token (classic)\n` +
        `${join("bytes", "sub" + "bad\ufffd", "notes.md")}:1:5 github-pat GitHub personal access token (classic)\n`,
      stderr: "",
    });
  });

  it("decodes UTF-16 LE and BE files with a byte order mark and stdin, and reports UTF-16 positions", async () => {
    const text = `# Notes\r\nclé: ${token}\r\n`;
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const be = Buffer.from(le).swap16();
    writeFileSync(join(dir, "le.txt"), le);
    writeFileSync(join(dir, "be.txt"), be);
    const r = await cli(["le.txt", "be.txt"]);
    expect(r).toMatchObject({ code: 1, stderr: "" });
    expect(r.stdout).toBe(["le.txt:2:6 github-pat GitHub personal access token (classic)", "be.txt:2:6 github-pat GitHub personal access token (classic)", ""].join("\n"));
    const { code, stdout } = await cliBytes(["-"], le);
    expect([code, stdout]).toEqual([1, "-:2:6 github-pat GitHub personal access token (classic)\n"]);
  });

  it(`exits ${EXIT_NOT_SCANNED} naming each input it did not scan (binary, odd-length UTF-16, UTF-32, over 64 MiB) when nothing was found`, async () => {
    mkdirSync(join(dir, "skipped"), { recursive: true });
    writeFileSync(join(dir, "skipped/blob.bin"), Buffer.from([0x00, 0x01, 0x02]));
    writeFileSync(join(dir, "skipped/odd.txt"), Buffer.from([0xff, 0xfe, 0x41, 0x00, 0x00]));
    writeFileSync(join(dir, "skipped/huge.md"), "");
    truncateSync(join(dir, "skipped/huge.md"), MAX_SCAN_FILE_BYTES + 1); // sparse: nothing is written
    writeFileSync(join(dir, "skipped/ok.md"), "fine\n");
    // UTF-32 LE: its mark FF FE 00 00 starts like UTF-16's; read as UTF-16 it would be NULs and halves.
    writeFileSync(join(dir, "skipped/u32.md"), Buffer.from([0xff, 0xfe, 0, 0, 0x41, 0, 0, 0, 0x0a, 0, 0, 0]));
    const r = await cli(["skipped"]);
    expect(r).toEqual({
      code: EXIT_NOT_SCANNED,
      stdout: "",
      stderr: [
        `teammem-scan: ${join("skipped", "blob.bin")}: not scanned (binary file: a NUL byte in the first 8 KiB)`,
        `teammem-scan: ${join("skipped", "huge.md")}: not scanned (larger than ${MAX_SCAN_FILE_BYTES} bytes)`,
        `teammem-scan: ${join("skipped", "odd.txt")}: not scanned (UTF-16 byte order mark but an odd number of bytes)`,
        `teammem-scan: ${join("skipped", "u32.md")}: not scanned (UTF-16 byte order mark but not UTF-16 text (a NUL, lone surrogate, private-use or control character): UTF-32 or binary)`,
        "",
      ].join("\n"),
    });
    expect((await cli([join("skipped", "blob.bin")])).code).toBe(EXIT_NOT_SCANNED);
    expect((await cli([join("skipped", "ok.md")])).code).toBe(0);
    // Findings elsewhere take precedence (exit 1), the skipped file is still named.
    expect(await cli(["skipped", join("tree", "sub", "notes.md")])).toMatchObject({ code: 1, stderr: expect.stringContaining("blob.bin: not scanned") });
  });

  it("marks a finding found only in encoded form in text, JSON and SARIF output", async () => {
    const auth = Buffer.from(`ci:${token}`).toString("base64");
    writeFileSync(join(dir, "config.json"), `{\n  "auths": { "ghcr.io": { "auth": "${auth}" } }\n}\n`);
    const text = await cli(["config.json"]);
    expect(text).toMatchObject({ code: 1, stdout: "config.json:2:40 github-pat GitHub personal access token (classic) (base64-encoded)\n" });
    const json = JSON.parse((await cli(["--format", "json", "config.json"])).stdout) as { encoding?: string }[];
    expect(json.map((r) => r.encoding)).toEqual(["base64"]);
    const sarif = JSON.parse((await cli(["--format", "sarif", "config.json"])).stdout) as { runs: { results: { properties?: object }[] }[] };
    expect(sarif.runs[0]!.results[0]!.properties).toEqual({ encoding: "base64" });
    expect((await cli(["--redact", "config.json"])).stdout).toBe(`{\n  "auths": { "ghcr.io": { "auth": "${auth.slice(0, 4)}[REDACTED:github-pat]" } }\n}\n`);
  });

  it("escapes control characters of a file name in text output, one line per finding (try14 F13)", async () => {
    const name = "we\nird\x1b[2K.md";
    mkdirSync(join(dir, "ctl"), { recursive: true });
    writeFileSync(join(dir, "ctl", name), `t=${token}\n`);
    const r = await cli(["ctl"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("ctl/we\\nird\\x1b[2K.md:1:3 github-pat GitHub personal access token (classic)\n");
    const json = await cli(["--format", "json", "ctl"]);
    expect(JSON.parse(json.stdout)[0].path).toBe(`ctl/${name}`); // JSON escapes them itself
  });

  it.each(["--key-file", "--config"])("exits 2 'empty %s' for an empty value, which would resolve to the current folder (try14 F14)", async (flag) => {
    const r = await cli([flag, "", "clean.md"]);
    expect([r.code, r.stderr.split("\n")[0]]).toEqual([2, `teammem-scan: empty ${flag}: give a file path`]);
  });

  it("exits 0 on clean input", async () => {
    expect(await cli(["clean.md"])).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("exits 2 with a message on a missing path or bad usage", async () => {
    expect(await cli(["missing.md"])).toMatchObject({ code: 2, stderr: "teammem-scan: missing.md: no such file or folder\n" });
    expect(await cli(["--format", "xml", "clean.md"])).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown --format xml") });
    expect(await cli([])).toMatchObject({ code: 2, stderr: expect.stringContaining("no paths given") });
    expect(await cli(["--bogus", "clean.md"])).toMatchObject({ code: 2, stderr: expect.stringContaining("--bogus") });
  });

  it("prints its package version with --version and exits 0", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    expect(await cli(["--version"])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
  });

  it("prints the usage with --help and exits 0", async () => {
    expect(await cli(["--help"])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^usage: teammem-scan/), stderr: "" });
  });

  it("reads stdin with -", async () => {
    expect(await cli(["-"], `line one\nkey: ${token}\n`)).toEqual({
      code: 1,
      stdout: "-:2:6 github-pat GitHub personal access token (classic)\n",
      stderr: "",
    });
  });

  it("prints JSON findings without the value", async () => {
    const r = await cli(["--format", "json", "tree/sub/notes.md"]);
    expect(r.code).toBe(1);
    const rows = JSON.parse(r.stdout);
    expect(rows).toEqual([
      {
        path: "tree/sub/notes.md",
        ruleId: "github-pat",
        label: "GitHub personal access token (classic)",
        line: 3,
        column: 14,
        endLine: 3,
        endColumn: 54,
        fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
        preview: "ghp_****",
      },
    ]);
    expect(r.stdout).not.toContain(token.slice(4));
  });

  it("prints a SARIF 2.1.0 log", async () => {
    const r = await cli(["--format", "sarif", "tree"]);
    expect(r.code).toBe(1);
    const log = JSON.parse(r.stdout);
    expect(log.version).toBe("2.1.0");
    expect(log.$schema).toContain("sarif-2.1.0");
    const run0 = log.runs[0];
    expect(run0.tool.driver.name).toBe("teammem-scan");
    const ids = run0.tool.driver.rules.map((x: { id: string }) => x.id);
    expect(ids).toContain("github-pat");
    for (const rule of run0.tool.driver.rules) expect(rule.shortDescription.text).toEqual(expect.any(String));
    expect(run0.results).toHaveLength(1);
    const res = run0.results[0];
    expect(res).toMatchObject({
      ruleId: "github-pat",
      level: "error",
      message: { text: expect.stringContaining("ghp_****") },
      locations: [{ physicalLocation: { artifactLocation: { uri: "tree/sub/notes.md" }, region: { startLine: 3, startColumn: 14, endLine: 3, endColumn: 54 } } }],
    });
    expect(ids[res.ruleIndex]).toBe("github-pat");
    expect(Object.values(res.partialFingerprints)[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(r.stdout).not.toContain(token.slice(4));
  });

  it("prints redacted text with --redact", async () => {
    expect(await cli(["--redact", "-"], `a\nGITHUB_TOKEN=${token}\r\n`)).toMatchObject({ code: 1, stdout: "a\nGITHUB_TOKEN=[REDACTED:github-pat]\r\n" });
  });

  it("labels each input with --redact over several files", async () => {
    const r = await cli(["--redact", "clean.md", "tree/sub/notes.md"]);
    expect(r).toMatchObject({ code: 1 });
    expect(r.stdout).toBe("==> clean.md <==\nnothing to see\n\n==> tree/sub/notes.md <==\n# Notes\n\nGITHUB_TOKEN=[REDACTED:github-pat]\n");
  });

  it("applies custom rules and allowlisted fingerprints from --config", async () => {
    const acme = "acme_" + randomChars(24, 5, "abcdefghijklmnopqrstuvwxyz");
    writeFileSync(join(dir, "acme.md"), `k=${acme}\nt=${token}\n`);
    const fp = JSON.parse((await cli(["--format", "json", "acme.md"])).stdout)[0].fingerprint;
    writeFileSync(
      join(dir, "scan.json"),
      JSON.stringify({ allowFingerprints: [fp], customRules: [{ id: "acme-key", label: "ACME key", prefixes: ["acme_"], pattern: "acme_[a-z]{24}(?![a-z])" }] }),
    );
    expect(await cli(["--config", "scan.json", "acme.md"])).toMatchObject({ code: 1, stdout: "acme.md:1:3 acme-key ACME key\n" });
  });

  it("refuses an invalid config with exit 2, naming the field", async () => {
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ customRules: [{ id: "x", label: "X", prefixes: ["ab"], pattern: "ab.*" }] }));
    const r = await cli(["--config", "bad.json", "clean.md"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("customRules[0].prefixes[0]");
    expect(r.stderr).toContain("customRules[0].pattern");
  });
});

describe("teammem-scan: paths and folder entries", () => {
  const t = token.slice(4); // the part after the prefix must never be printed

  it("reports a credential in a file name and redacts it in text, JSON, SARIF, --redact and stderr", async () => {
    mkdirSync(join(dir, "pn"), { recursive: true });
    writeFileSync(join(dir, "pn", `${token}.md`), "clean\n");
    writeFileSync(join(dir, "pn", `in-${token}.md`), `T=${token2}\n`);
    writeFileSync(join(dir, "pn", `bin-${token}.bin`), Buffer.from([0x78, 0x00, 0x79]));
    const r = await cli(["pn"]);
    expect(r).toEqual({
      code: 1,
      stdout: [
        `${join("pn", "[REDACTED:github-pat].md")}: path holds github-pat GitHub personal access token (classic)`,
        `${join("pn", "in-[REDACTED:github-pat].md")}: path holds github-pat GitHub personal access token (classic)`,
        `${join("pn", "in-[REDACTED:github-pat].md")}:1:3 github-pat GitHub personal access token (classic)`,
        `${join("pn", "bin-[REDACTED:github-pat].bin")}: path holds github-pat GitHub personal access token (classic)`,
        "",
      ].join("\n"),
      stderr: `teammem-scan: ${join("pn", "bin-[REDACTED:github-pat].bin")}: not scanned (binary file: a NUL byte in the first 8 KiB)\n`,
    });
    // A clean file whose name holds a token is a finding (exit 1), not a clean scan.
    expect(await cli([join("pn", `${token}.md`)])).toMatchObject({ code: 1 });
    const json = await cli(["--format", "json", "pn"]);
    expect(json.stdout).not.toContain(t);
    const rows = JSON.parse(json.stdout) as { path: string; in?: string; line?: number }[];
    expect(rows.map((x) => [x.path, x.in ?? "content"])).toEqual([
      ["pn/[REDACTED:github-pat].md", "path"],
      ["pn/in-[REDACTED:github-pat].md", "path"],
      ["pn/in-[REDACTED:github-pat].md", "content"],
      ["pn/bin-[REDACTED:github-pat].bin", "path"],
    ]);
    const sarif = await cli(["--format", "sarif", "pn"]);
    expect(sarif.stdout).not.toContain(t);
    const results = (JSON.parse(sarif.stdout) as { runs: { results: { locations: { physicalLocation: { artifactLocation: { uri: string }; region?: object } }[] }[] }[] }).runs[0]!.results;
    expect(results.map((x) => [x.locations[0]!.physicalLocation.artifactLocation.uri, x.locations[0]!.physicalLocation.region === undefined])).toEqual([
      ["pn/%5BREDACTED:github-pat%5D.md", true],
      ["pn/in-%5BREDACTED:github-pat%5D.md", true],
      ["pn/in-%5BREDACTED:github-pat%5D.md", false],
      ["pn/bin-%5BREDACTED:github-pat%5D.bin", true],
    ]);
    const redacted = await cli(["--redact", "pn"]);
    expect(redacted.stdout + redacted.stderr).not.toContain(t);
    expect(redacted.stdout).toContain(`==> ${join("pn", "in-[REDACTED:github-pat].md")} <==\nT=[REDACTED:github-pat]\n`);
    const missing = await cli([join("pn", `nonexist-${token}.md`)]);
    expect(missing).toEqual({ code: 2, stdout: "", stderr: `teammem-scan: ${join("pn", "nonexist-[REDACTED:github-pat].md")}: no such file or folder\n` });
  });

  it(`names a symbolic link, FIFO or socket inside a folder as not scanned (exit ${EXIT_NOT_SCANNED}) instead of skipping it silently`, async () => {
    mkdirSync(join(dir, "onlylink"), { recursive: true });
    symlinkSync(join("..", "clean.md"), join(dir, "onlylink", "a.md"));
    mkdirSync(join(dir, "onlyfifo"), { recursive: true });
    expect(spawnSync("mkfifo", [join(dir, "onlyfifo", "p")]).status).toBe(0);
    expect(await cli(["onlylink"])).toEqual({
      code: EXIT_NOT_SCANNED,
      stdout: "",
      stderr: `teammem-scan: ${join("onlylink", "a.md")}: not scanned (symbolic link, not followed)\n`,
    });
    expect(await cli(["onlyfifo"])).toEqual({
      code: EXIT_NOT_SCANNED,
      stdout: "",
      stderr: `teammem-scan: ${join("onlyfifo", "p")}: not scanned (not a regular file or folder)\n`,
    });
    // A link whose own name holds a token: a finding, its name redacted.
    symlinkSync(join("..", "clean.md"), join(dir, "onlylink", `${token}.md`));
    const r = await cli(["onlylink"]);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toContain(t);
    expect(r.stdout).toBe(`${join("onlylink", "[REDACTED:github-pat].md")}: path holds github-pat GitHub personal access token (classic)\n`);
  });
});

describe("teammem-scan usage guards", () => {
  it("refuses a FIFO named on the command line instead of blocking on it", async () => {
    const fifo = join(dir, "pipe");
    spawnSync("mkfifo", [fifo]);
    const r = await cli(["pipe", "clean.md"]);
    expect(r).toMatchObject({ code: 2, stderr: "teammem-scan: pipe: not a regular file or folder\n" });
  });

  it("refuses a --key-file that does not exist rather than creating a new key there", async () => {
    const r = await cli(["--key-file", join(dir, "no-such-dir", "key"), "clean.md"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no such file");
    expect(existsSync(join(dir, "no-such-dir"))).toBe(false);
  });

  it("creates the default key under $XDG_CONFIG_HOME, else $HOME/.config, when no key file is named", async () => {
    const io = { stdout: () => {}, stderr: () => {}, readStdin: () => Buffer.alloc(0) };
    expect(await run(["clean.md"], { XDG_CONFIG_HOME: join(dir, "xdg") }, io, dir)).toBe(0);
    expect(existsSync(join(dir, "xdg", "teammem", "fingerprint-key"))).toBe(true);
    expect(await run(["clean.md"], { HOME: join(dir, "home") }, io, dir)).toBe(0);
    expect(existsSync(join(dir, "home", ".config", "teammem", "fingerprint-key"))).toBe(true);
  });

  it("refuses a key path that is a folder, or a file that is no key, with a stable code, the path and a hint", async () => {
    mkdirSync(join(dir, "keydir"), { recursive: true });
    const io = () => {
      let stderr = "";
      return { io: { stdout: () => {}, stderr: (t: string) => void (stderr += t), readStdin: () => Buffer.alloc(0) }, err: () => stderr };
    };
    const a = io();
    expect(await run(["clean.md"], { TEAMMEM_SCAN_KEY_FILE: join(dir, "keydir") }, a.io, dir)).toBe(2);
    expect(a.err()).toBe(
      `teammem-scan: fingerprint key ${join(dir, "keydir")}: a folder, not a key file (key_file_not_a_file); ` +
        "name a readable key file with --key-file or $TEAMMEM_SCAN_KEY_FILE, or unset both to use the default key\n",
    );
    const b = io();
    expect(await run(["--key-file", "keydir", "clean.md"], {}, b.io, dir)).toBe(2);
    expect(b.err()).toContain("(key_file_not_a_file)");
    writeFileSync(join(dir, "notakey"), "hello\n");
    const c = io();
    expect(await run(["--key-file", "notakey", "clean.md"], {}, c.io, dir)).toBe(2);
    expect(c.err()).toContain(`fingerprint key ${join(dir, "notakey")}: not a fingerprint key: a character other than 0-9, a-f (expected 64 hex characters, or a teammem scan-policy.json) (key_file_invalid)`);
    // Under a file, not a folder: the key cannot be created there.
    const d = io();
    expect(await run(["clean.md"], { TEAMMEM_SCAN_KEY_FILE: join(dir, "clean.md", "key") }, d.io, dir)).toBe(2);
    expect(d.err()).toContain("(key_file_not_a_file)");
  });

  it("reads an empty $TEAMMEM_SCAN_KEY_FILE or $XDG_CONFIG_HOME as unset (the default key), not as the current folder", async () => {
    const io = { stdout: () => {}, stderr: () => {}, readStdin: () => Buffer.alloc(0) };
    expect(await run(["clean.md"], { TEAMMEM_SCAN_KEY_FILE: "", XDG_CONFIG_HOME: "", HOME: join(dir, "home-empty") }, io, dir)).toBe(0);
    expect(existsSync(join(dir, "home-empty", ".config", "teammem", "fingerprint-key"))).toBe(true);
  });

  it("refuses a key file it may not read with key_file_unreadable (run as user nobody when root, else a 000 file)", (ctx) => {
    const open = mkdtempSync(join(tmpdir(), "teammem-scan-key-"));
    chmodSync(open, 0o755);
    writeFileSync(join(open, "f.md"), "clean\n", { mode: 0o644 });
    writeFileSync(join(open, "key"), "0".repeat(64) + "\n", { mode: 0o600 });
    const root = process.getuid?.() === 0;
    if (!root) chmodSync(join(open, "key"), 0o000);
    const launcher = fileURLToPath(new URL("../../bin/teammem-scan.js", import.meta.url));
    // As root the check runs as nobody, who needs a node it may execute: CI's Node 24 lives under
    // /root (0700), so the machine's node runs the same launcher there.
    const asNobody = { uid: 65534, gid: 65534 };
    const node = root ? [process.execPath, "/usr/bin/node"].find((n) => spawnSync(n, ["-e", ""], asNobody).status === 0) : process.execPath;
    if (!node) return ctx.skip("no node binary the user nobody may execute");
    const r = spawnSync(node, [launcher, "f.md"], {
      cwd: open,
      encoding: "utf8",
      env: { PATH: process.env["PATH"], TEAMMEM_SCAN_KEY_FILE: join(open, "key") },
      ...(root && asNobody),
    });
    expect({ status: r.status, stderr: r.stderr }).toEqual({
      status: 2,
      stderr:
        `teammem-scan: fingerprint key ${join(open, "key")}: cannot read it (EACCES: permission denied or read-only) (key_file_unreadable); ` +
        "name a readable key file with --key-file or $TEAMMEM_SCAN_KEY_FILE, or unset both to use the default key\n",
    });
  });

  it("refuses --redact together with --format json or sarif", async () => {
    expect(await cli(["--redact", "--format", "sarif", "clean.md"])).toMatchObject({ code: 2, stderr: expect.stringContaining("--redact") });
  });
});

describe("the installed teammem-scan command (bin launcher over the build)", () => {
  it("reports findings and exits 1 when started through bin/teammem-scan.js", () => {
    const launcher = fileURLToPath(new URL("../../bin/teammem-scan.js", import.meta.url));
    const r = spawnSync(process.execPath, [launcher, "tree"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, TEAMMEM_SCAN_KEY_FILE: join(dir, "key") },
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe(`${join("tree", "sub", "notes.md")}:3:14 github-pat GitHub personal access token (classic)\n`);
  });
});
