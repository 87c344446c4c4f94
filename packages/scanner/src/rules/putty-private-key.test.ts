/**
 * Issue 10, "Formats": PuTTY `.ppk` keys made by the real tool, at test time (nothing key-like is
 * committed): unencrypted ed25519 and ecdsa-nistp256 keys, whose private part is shorter than 64
 * base64 characters, in both file versions, plus RSA and a key converted from ssh-keygen.
 * Needs `puttygen` (Debian package putty-tools, which `.ci/run` installs); skipped with a message when
 * it is not installed, except in CI (CI or TEAMMEM_CI set), where its absence fails the file.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scan } from "../scan.js";

const hasTool = (tool: string): boolean => {
  try {
    execFileSync(tool, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
const PUTTYGEN = hasTool("puttygen");
if (!PUTTYGEN) {
  if (process.env["CI"] || process.env["TEAMMEM_CI"]) throw new Error("putty-private-key.test.ts: puttygen not found in CI (apt-get install putty-tools)");
  console.warn("putty-private-key.test.ts: puttygen not found (apt-get install putty-tools): real .ppk keys not checked");
}

const dir = mkdtempSync(join(tmpdir(), "teammem-ppk-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A new key file made by puttygen; its text. */
function puttygen(name: string, args: string[]): string {
  const file = join(dir, `${name}.ppk`);
  execFileSync("puttygen", [...args, "-o", file, "--new-passphrase", "/dev/null"], { stdio: "ignore" });
  return readFileSync(file, "utf8");
}

describe.skipIf(!PUTTYGEN)("putty-private-key on keys made by puttygen", () => {
  it.each([
    ["ed25519, PPK 3", ["-t", "ed25519"]],
    ["ed25519, PPK 2", ["-t", "ed25519", "--ppk-param", "version=2"]],
    ["ecdsa-nistp256, PPK 3", ["-t", "ecdsa", "-b", "256"]],
    ["ecdsa-nistp256, PPK 2", ["-t", "ecdsa", "-b", "256", "--ppk-param", "version=2"]],
    ["rsa 2048, PPK 3", ["-t", "rsa", "-b", "2048"]],
  ])("reports an unencrypted %s key at its first private line", (name, args) => {
    const text = puttygen(name.replace(/\W+/g, "-"), args);
    const privateLine = text.split("\n").indexOf(text.split("\n").find((l) => l.startsWith("Private-Lines:"))!) + 2;
    expect(scan(text).map((f) => [f.ruleId, f.line, f.column])).toEqual([["putty-private-key", privateLine, 1]]);
    expect(scan(text.replace(/\n/g, "\r\n")).map((f) => f.ruleId)).toEqual(["putty-private-key"]);
    // Removed in a diff, quoted in a note, inside a JSON string (issue 10: multi-line tokens).
    for (const lead of ["-", "+", "> "]) expect(scan(lead + text.replace(/\n/g, `\n${lead}`)).map((f) => f.ruleId)).toEqual(["putty-private-key"]);
    expect(scan(JSON.stringify({ key: text })).map((f) => f.ruleId)).toEqual(["putty-private-key"]);
  });

  it("reports a key converted from ssh-keygen's ed25519 key, and its public part alone is not reported", () => {
    if (!hasTool("ssh-keygen")) return;
    const key = join(dir, "from-openssh");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key], { stdio: "ignore" });
    const ppk = puttygen("converted", [key, "-O", "private"]);
    expect(scan(ppk).map((f) => f.ruleId)).toEqual(["putty-private-key"]);
    const publicOnly = ppk.slice(0, ppk.indexOf("Private-Lines:"));
    expect(scan(publicOnly)).toEqual([]);
  });
});
