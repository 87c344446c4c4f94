/**
 * Issue 10, "Formats": PuTTY `.ppk` keys made by the real tool, at test time (nothing key-like is
 * committed): every key type PuTTY writes (rsa, dsa, ecdsa-nistp256/384/521, ed25519, ed448), in both
 * file versions, unencrypted and encrypted, plus a key converted from ssh-keygen. The short private
 * parts are the point: unencrypted DSA (32 or 36 base64 characters), ed25519 and ecdsa-nistp256 (48
 * or 52); an encrypted key with a certificate has 37 lines between its first line and `Private-Lines:`.
 * Needs `puttygen` (Debian package putty-tools, which `.ci/run` installs); skipped with a message when
 * it is not installed, except in CI (CI or TEAMMEM_CI set), where its absence fails the file.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scan } from "../scan.js";

/** Whether `tool` can be run (ssh-keygen has no --version: it exits 1, which still means it is there). */
const hasTool = (tool: string): boolean => {
  try {
    execFileSync(tool, ["--version"], { stdio: "ignore" });
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
};
const PUTTYGEN = hasTool("puttygen");
if (!PUTTYGEN) {
  if (process.env["CI"] || process.env["TEAMMEM_CI"]) throw new Error("putty-private-key.test.ts: puttygen not found in CI (apt-get install putty-tools)");
  console.warn("putty-private-key.test.ts: puttygen not found (apt-get install putty-tools): real .ppk keys not checked");
}

const dir = mkdtempSync(join(tmpdir(), "teammem-ppk-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A passphrase file for encrypted keys (made at test time, like the keys). */
const passphrase = join(dir, "passphrase");
writeFileSync(passphrase, `${randomBytes(12).toString("hex")}\n`);

/** A new key file made by puttygen (encrypted with `passphrase` when `encrypted`); its text. */
function puttygen(name: string, args: string[], encrypted = false): string {
  const file = join(dir, `${name}.ppk`);
  execFileSync("puttygen", [...args, "-o", file, "--new-passphrase", encrypted ? passphrase : "/dev/null"], { stdio: "ignore" });
  return readFileSync(file, "utf8");
}

/** Length of the first line after `Private-Lines:`. */
const firstPrivateLine = (text: string): string => text.split("\n")[text.split("\n").findIndex((l) => l.startsWith("Private-Lines:")) + 1]!;

const TYPES: [string, string[]][] = [
  ["dsa 1024", ["-t", "dsa", "-b", "1024"]],
  ["ed25519", ["-t", "ed25519"]],
  ["ed448", ["-t", "ed448"]],
  ["ecdsa-nistp256", ["-t", "ecdsa", "-b", "256"]],
  ["ecdsa-nistp384", ["-t", "ecdsa", "-b", "384"]],
  ["ecdsa-nistp521", ["-t", "ecdsa", "-b", "521"]],
  ["rsa 2048", ["-t", "rsa", "-b", "2048"]],
];
/** Each type in each file version, unencrypted and encrypted: [case name, type, version, encrypted]. */
const CASES: [string, string, number, boolean][] = TYPES.flatMap(([type]) =>
  [3, 2].flatMap((version) => [false, true].map((encrypted): [string, string, number, boolean] => [`${type}, PPK ${version}${encrypted ? ", encrypted" : ""}`, type, version, encrypted])),
);

/**
 * The key of `type` (TYPES), made once per file by puttygen and kept in OpenSSH format; the cases
 * convert it to the PPK they need (a new key each time would cost seconds per RSA key on a loaded
 * machine; puttygen refuses to save a PPK again as an unencrypted PPK: "no useful action").
 */
const madeKeys = new Map<string, string>();
function keyFile(type: string): string {
  let file = madeKeys.get(type);
  if (file === undefined) {
    file = join(dir, `${type.replace(/\W+/g, "-")}.openssh`);
    execFileSync("puttygen", [...TYPES.find(([t]) => t === type)![1], "-O", "private-openssh-new", "-o", file, "--new-passphrase", "/dev/null"], { stdio: "ignore" });
    madeKeys.set(type, file);
  }
  return file;
}

/** The key of `type` saved as PPK `version`, encrypted or not; its text. */
const saved = (type: string, version: number, encrypted: boolean): string =>
  puttygen(`${type}-${version}-${encrypted}`.replace(/\W+/g, "-"), [keyFile(type), "-O", "private", "--ppk-param", `version=${version}`], encrypted);

describe.skipIf(!PUTTYGEN)("putty-private-key on keys made by puttygen", () => {
  it.each(CASES)("reports a %s key at its first private line", (_name, type, version, encrypted) => {
    const text = saved(type, version, encrypted);
    const privateLine = text.split("\n").indexOf(text.split("\n").find((l) => l.startsWith("Private-Lines:"))!) + 2;
    // An encrypted private part is random base64: a line that starts with `+` or `//` reads as a
    // diff or comment marker before the line (LINE_LEAD, block-lines.ts), so the finding starts after it.
    const column = 1 + /^(?:\+|\/\/){0,3}/.exec(firstPrivateLine(text))![0].length;
    expect(scan(text).map((f) => [f.ruleId, f.line, f.column])).toEqual([["putty-private-key", privateLine, column]]);
    expect(scan(text.replace(/\n/g, "\r\n")).map((f) => f.ruleId)).toEqual(["putty-private-key"]);
    expect(scan(text.replace(/\n/g, "\r")).map((f) => f.ruleId)).toEqual(["putty-private-key"]);
    // Removed in a diff, quoted in a note, inside a JSON string (issue 10: multi-line tokens).
    for (const lead of ["-", "+", "> "]) expect(scan(lead + text.replace(/\n/g, `\n${lead}`)).map((f) => f.ruleId)).toEqual(["putty-private-key"]);
    expect(scan(JSON.stringify({ key: text })).map((f) => f.ruleId)).toEqual(["putty-private-key"]);
  });

  it("the first private line is as long as the key type's private part says (rule doc): DSA 32/36, ed25519 48, nistp256 48/52, encrypted DSA 44", () => {
    const length = (type: string, encrypted = false): number => firstPrivateLine(saved(type, 3, encrypted)).length;
    expect([32, 36]).toContain(length("dsa 1024"));
    expect(length("ed25519")).toBe(48);
    expect([48, 52]).toContain(length("ecdsa-nistp256"));
    expect(length("dsa 1024", true)).toBe(44);
  });

  it("reports an encrypted key with an OpenSSH certificate of 40 principals, whose Private-Lines: is 38 lines below its first line", () => {
    if (!hasTool("ssh-keygen")) return;
    // The public part is the certificate: 29 lines (an encrypted 3072-bit DSA key has 34 lines in
    // all, but puttygen takes a minute to make one on a loaded machine).
    const ca = join(dir, "cert-ca");
    const user = join(dir, "cert-user");
    for (const key of [ca, user]) execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key], { stdio: "ignore" });
    const principals = Array.from({ length: 40 }, (_, i) => `principal-number-${i}`).join(",");
    execFileSync("ssh-keygen", ["-q", "-s", ca, "-I", "id", "-n", principals, `${user}.pub`], { stdio: "ignore" });
    const text = puttygen("certified", [user, "--certificate", `${user}-cert.pub`, "-O", "private"], true);
    const lines = text.split("\n");
    const privateLines = lines.findIndex((l) => l.startsWith("Private-Lines:"));
    expect(privateLines).toBeGreaterThan(31); // beyond the former 30-line window
    expect(scan(text).map((f) => [f.ruleId, f.line])).toEqual([["putty-private-key", privateLines + 2]]);
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
