/**
 * `teammem-scan --key-file` (issue 10, "one fingerprint key per team"): the key file's 64 hex
 * characters are the HMAC key as TEXT, as the server (re-scan, audit log) and the teammem client use
 * the team's key, so a fingerprint printed here is the one an admin sees. A key file that holds no
 * key is refused with exit 2, the path, a stable code and what is wrong (never its content).
 * test/e2e/scan-cli-fingerprints.test.ts checks the same against a real server and client.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeGithubToken } from "../fakes.js";
import { fingerprint, MAX_KEY_FILE_BYTES } from "../fingerprint.js";
import { scan } from "../scan.js";
import { run } from "./run.js";

let dir: string;
const token = fakeGithubToken("ghp_", 311);
const teamKey = randomBytes(32).toString("hex"); // as the server issues a team's key

/** Runs the CLI in-process in `dir`; returns exit code and captured output. */
async function cli(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t), readStdin: () => Buffer.alloc(0) };
  const code = await run(args, env, io, dir);
  return { code, stdout, stderr };
}

const fingerprints = async (args: string[]) => {
  const r = await cli(["--format", "json", ...args, "notes.md"]);
  expect(r.code, r.stderr).toBe(1);
  return (JSON.parse(r.stdout) as { fingerprint: string }[]).map((f) => f.fingerprint);
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "teammem-scan-key-file-"));
  writeFileSync(join(dir, "notes.md"), `deploy with ${token}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("teammem-scan --key-file", () => {
  it("fingerprints with the key file's hex text as the HMAC key: the team's definition (server re-scan, audit log, teammem status)", async () => {
    writeFileSync(join(dir, "team-key"), `${teamKey}\n`);
    // The server scans with the team's key string as is (store/validate-content.ts), as the client does.
    const server = scan(`deploy with ${token}\n`, { fingerprintKey: teamKey })[0]!.fingerprint;
    expect(await fingerprints(["--key-file", "team-key"])).toEqual([server]);
    // Not the fingerprint under the 32 bytes the hex spells (what teammem-scan printed before).
    expect(server).not.toBe(fingerprint(token, Buffer.from(teamKey, "hex")));
  });

  it("reads the key from a teammem memory folder's .teammem/scan-policy.json, and hex in any case", async () => {
    mkdirSync(join(dir, "mem", ".teammem"), { recursive: true });
    const policy = { fingerprintKey: { id: 2, key: teamKey }, allowedFingerprints: ["0".repeat(32)], fetchedAt: "2026-12-01T00:00:00.000Z" };
    writeFileSync(join(dir, "mem", ".teammem", "scan-policy.json"), JSON.stringify(policy, null, 2));
    writeFileSync(join(dir, "upper-key"), teamKey.toUpperCase());
    const expected = scan(token, { fingerprintKey: teamKey })[0]!.fingerprint;
    expect(await fingerprints(["--key-file", join("mem", ".teammem", "scan-policy.json")])).toEqual([expected]);
    expect(await fingerprints(["--key-file", "upper-key"])).toEqual([expected]);
    // $TEAMMEM_SCAN_KEY_FILE is read the same way.
    const r = await cli(["--format", "json", "notes.md"], { TEAMMEM_SCAN_KEY_FILE: join(dir, "team-key") });
    expect((JSON.parse(r.stdout) as { fingerprint: string }[])[0]!.fingerprint).toBe(expected);
  });

  const hint = "name a readable key file with --key-file or $TEAMMEM_SCAN_KEY_FILE, or unset both to use the default key";
  const forms = "(expected 64 hex characters, or a teammem scan-policy.json)";
  it.each([
    ["not hex", "zz".repeat(32), `not a fingerprint key: a character other than 0-9, a-f ${forms} (key_file_invalid)`],
    ["the wrong length", "ab".repeat(16), `not a fingerprint key: 32 hex characters ${forms} (key_file_invalid)`],
    ["one hex character too many", teamKey + "a", `not a fingerprint key: 65 hex characters ${forms} (key_file_invalid)`],
    ["empty", "", `empty, no key in it ${forms} (key_file_invalid)`],
    ["only a line break", "\n", `empty, no key in it ${forms} (key_file_invalid)`],
    ["binary (a NUL byte)", Buffer.concat([Buffer.from(teamKey.slice(0, 8)), Buffer.from([0, 1, 2])]), `binary, not a key file: a NUL byte ${forms} (key_file_invalid)`],
    ["binary (not UTF-8)", Buffer.from([0xff, 0xfe, 0x80, 0x81]), `binary, not a key file: not UTF-8 text ${forms} (key_file_invalid)`],
    ["JSON without fingerprintKey.key", JSON.stringify({ fingerprintKey: { id: 1 } }), `JSON without a fingerprintKey.key of 64 hex characters ${forms} (key_file_invalid)`],
    ["broken JSON", `{"fingerprintKey": {"key": "${teamKey}"`, `starts like JSON but is not valid JSON ${forms} (key_file_invalid)`],
  ])("refuses a key file that is %s: exit 2 with the path, the code and the reason, never its content", async (_what, content, reason) => {
    const path = join(dir, `bad-key-${_what.replace(/\W+/g, "-")}`);
    writeFileSync(path, content);
    const ways: { args: string[]; env: Record<string, string> }[] = [
      { args: ["--key-file", path], env: {} },
      { args: [], env: { TEAMMEM_SCAN_KEY_FILE: path } },
    ];
    for (const how of ways) {
      const r = await cli([...how.args, "notes.md"], how.env);
      expect(r).toEqual({ code: 2, stdout: "", stderr: `teammem-scan: fingerprint key ${path}: ${reason}; ${hint}\n` });
    }
  });

  it(`refuses a key file larger than ${MAX_KEY_FILE_BYTES} bytes after reading that much, not all of it`, async () => {
    const path = join(dir, "huge-key");
    writeFileSync(path, "");
    truncateSync(path, 4 * 1024 ** 3); // 4 GiB, sparse: reading it all would take seconds and the memory
    const r = await cli(["--key-file", path, "notes.md"]);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: `teammem-scan: fingerprint key ${path}: larger than ${MAX_KEY_FILE_BYTES} bytes, not a key file ${forms} (key_file_invalid); ${hint}\n`,
    });
  });

  it("refuses a --key-file that is a folder (key_file_not_a_file) or missing (key_file_missing, nothing created)", async () => {
    mkdirSync(join(dir, "key-folder"), { recursive: true });
    expect(await cli(["--key-file", "key-folder", "notes.md"])).toEqual({
      code: 2,
      stdout: "",
      stderr: `teammem-scan: fingerprint key ${join(dir, "key-folder")}: a folder, not a key file (key_file_not_a_file); ${hint}\n`,
    });
    expect(await cli(["--key-file", "no-such-key", "notes.md"])).toEqual({
      code: 2,
      stdout: "",
      stderr: `teammem-scan: fingerprint key ${join(dir, "no-such-key")}: no such file (only the default key is created on first use) (key_file_missing); ${hint}\n`,
    });
    expect(existsSync(join(dir, "no-such-key"))).toBe(false);
  });
});
