/**
 * try14 F4 and F5 (issue 10): private keys made by the real tools at test time (ssh-keygen, openssl;
 * nothing key-like is committed) in the Markdown and HTML shapes a note gives them, and an OpenSSH
 * key body without its BEGIN/END lines. Before, a list (`* `, `1. `), a table row per line, lines
 * joined by `<br>` or by spaces on one line hid the key entirely; the body alone too.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scan } from "../scan.js";

const dir = mkdtempSync(join(tmpdir(), "teammem-key-shapes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A new key file made by `tool` with `args` (the output path last); its text. */
function made(name: string, tool: string, args: string[]): string {
  const file = join(dir, name);
  execFileSync(tool, [...args, file], { stdio: "ignore" });
  return readFileSync(file, "utf8");
}

/** [case, key file name, key text]; ssh-keygen writes the public key beside it as `<name>.pub`. */
const OPENSSH: [string, string, string][] = [
  ["ed25519", "ed25519", made("ed25519", "ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "", "-f"])],
  ["ecdsa", "ecdsa", made("ecdsa", "ssh-keygen", ["-q", "-t", "ecdsa", "-N", "", "-C", "", "-f"])],
  ["rsa 2048, encrypted", "rsa", made("rsa", "ssh-keygen", ["-q", "-t", "rsa", "-b", "2048", "-N", "passphrase-at-test-time", "-C", "", "-f"])],
];
const PEM: [string, string][] = [
  ["PKCS#8 RSA (PRIVATE KEY)", made("pkcs8.pem", "openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out"])],
  ["PKCS#1 RSA (RSA PRIVATE KEY)", made("pkcs1.pem", "openssl", ["genrsa", "-traditional", "-out"]).replace(/^(?!-----BEGIN)[\s\S]*?(?=-----BEGIN)/, "")],
  ["SEC 1 (EC PRIVATE KEY)", made("ec.pem", "openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out"])],
  ["encrypted PKCS#8 (ENCRYPTED PRIVATE KEY)", made("enc.pem", "openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-aes256", "-pass", "pass:passphrase-at-test-time", "-out"])],
];

/** The shapes of F4, each a function of the key file's text. */
const lines = (t: string): string[] => t.trimEnd().split("\n");
const SHAPES: Record<string, (t: string) => string> = {
  "a list item per line (* )": (t) => lines(t).map((l) => `* ${l}`).join("\n"),
  "a numbered list (1. 2. …)": (t) => lines(t).map((l, i) => `${i + 1}. ${l}`).join("\n"),
  "a table row per line": (t) => `| key |\n|---|\n${lines(t).map((l) => `| ${l} |`).join("\n")}`,
  "lines joined by <br> in a table cell": (t) => `| prod | ${lines(t).join("<br>")} |`,
  "lines joined by spaces on one line": (t) => `deploy key: ${lines(t).join(" ")}`,
  "a list item per line, in a block quote": (t) => lines(t).map((l) => `> - ${l}`).join("\n"),
};
const found = (text: string): string[] => scan(text).map((f) => f.ruleId);
/** The body lines alone (no BEGIN/END line). */
const body = (t: string): string[] => lines(t).slice(1, -1);

describe.each(OPENSSH)("OpenSSH key (%s) from ssh-keygen", (_name, file, key) => {
  it("is reported once as openssh-private-key", () => expect(found(key)).toEqual(["openssh-private-key"]));
  it.each(Object.entries(SHAPES))("is reported in %s", (_shape, shape) => expect(found(shape(key))).toEqual(["openssh-private-key"]));
  it("is reported without its BEGIN and END lines, as openssh-unarmored-private-key at the body's start", () => {
    const text = `the key:\n${body(key).join("\n")}\n`;
    expect(scan(text).map((f) => [f.ruleId, f.line, f.column])).toEqual([["openssh-unarmored-private-key", 2, 1]]);
  });
  it.each([
    ["a list item per line", (b: string[]) => b.map((l) => `* ${l}`).join("\n")],
    ["one line", (b: string[]) => b.join(" ")],
    ["a JSON string", (b: string[]) => JSON.stringify({ key: b.join("\n") })],
    ["lines joined by <br>", (b: string[]) => b.join("<br>")],
  ] as const)("is reported without its BEGIN and END lines, as %s", (_shape, shape) => {
    expect(found(shape(body(key)))).toEqual(["openssh-unarmored-private-key"]);
  });
  it("is not reported from its public key file", () => {
    const pub = readFileSync(join(dir, `${file}.pub`), "utf8");
    expect(pub).toMatch(/^(?:ssh-|ecdsa-)/);
    expect(found(pub)).toEqual([]);
    expect(found(pub.split(" ")[1]!)).toEqual([]); // the base64 blob alone
  });
  it("is not reported from its first body line alone (shorter than the 160 characters read)", () => {
    expect(found(body(key)[0]!)).toEqual([]);
  });
});

describe.each(PEM)("PEM key (%s) from openssl", (_name, key) => {
  it("is reported once as private-key", () => expect(found(key)).toEqual(["private-key"]));
  it.each(Object.entries(SHAPES))("is reported in %s", (_shape, shape) => expect(found(shape(key))).toEqual(["private-key"]));
});

describe("near misses stay negative", () => {
  it.each([
    ["a BEGIN line followed by prose on one line", "The file starts with -----BEGIN OPENSSH PRIVATE KEY----- and then the base64 body follows on the next lines of the file until the END line"],
    ["a BEGIN line followed by prose in a list", "* -----BEGIN PRIVATE KEY-----\n* then the body of the key in base64 which you must never paste into a shared note at all"],
    ["a BEGIN line and an ellipsis in a table", "| key |\n|---|\n| -----BEGIN RSA PRIVATE KEY----- |\n| ... |\n| -----END RSA PRIVATE KEY----- |"],
    ["a BEGIN line and a placeholder joined by <br>", "-----BEGIN OPENSSH PRIVATE KEY-----<br>&lt;your key here&gt;<br>-----END OPENSSH PRIVATE KEY-----"],
    ["a public key in a list", `* -----BEGIN PUBLIC KEY-----\n* MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n* -----END PUBLIC KEY-----`],
    ["the OpenSSH magic in prose", "Every OpenSSH private key body starts with b3BlbnNzaC1rZXktdjE, the base64 of openssh-key-v1."],
  ])("%s", (_name, text) => expect(found(text)).toEqual([]));
});
