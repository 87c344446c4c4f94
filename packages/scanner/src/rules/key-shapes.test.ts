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

/**
 * try17 H2: PKCS#8, PKCS#1 and SEC 1 keys from openssl with their line breaks removed (the body on
 * the BEGIN line: private-key) or without BEGIN/END lines (pkcs-unarmored-private-key), as env vars,
 * JSON strings and `base64 -w0` of a DER file hold them; each found at the body's first character.
 */
const derOf = (tool: string, file: string, extra: string[] = []): Buffer =>
  execFileSync("openssl", [tool, "-in", join(dir, file), ...extra, "-outform", "DER"], { stdio: ["ignore", "pipe", "ignore"] });
const RAW: [string, string, string, string[]][] = [
  // [case, key file, openssl command that writes its DER, its options]
  ["PKCS#8 RSA 2048", "pkcs8.pem", "pkcs8", ["-topk8", "-nocrypt"]],
  ["PKCS#8 RSA 4096", "raw-rsa4096.pem", "pkcs8", ["-topk8", "-nocrypt"]],
  ["PKCS#1 RSA 2048", "pkcs1.pem", "rsa", ["-traditional"]],
  ["PKCS#1 RSA 1024", "raw-rsa1024.pem", "rsa", ["-traditional"]],
  ["SEC 1 P-256", "ec.pem", "ec", []],
  ["SEC 1 P-384", "raw-ec384.pem", "ec", []],
  ["SEC 1 P-521", "raw-ec521.pem", "ec", []],
  ["PKCS#8 EC P-256", "raw-p8ec.pem", "pkcs8", ["-topk8", "-nocrypt"]],
  ["PKCS#8 EC P-384", "raw-p8ec384.pem", "pkcs8", ["-topk8", "-nocrypt"]],
  ["PKCS#8 Ed25519", "raw-ed25519.pem", "pkcs8", ["-topk8", "-nocrypt"]],
  ["PKCS#8 Ed448", "raw-ed448.pem", "pkcs8", ["-topk8", "-nocrypt"]],
  ["PKCS#8 X25519", "raw-x25519.pem", "pkcs8", ["-topk8", "-nocrypt"]],
];
made("raw-rsa4096.pem", "openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:4096", "-out"]);
execFileSync("openssl", ["genrsa", "-traditional", "-out", join(dir, "raw-rsa1024.pem"), "1024"], { stdio: "ignore" });
made("raw-ec384.pem", "openssl", ["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out"]);
made("raw-ec521.pem", "openssl", ["ecparam", "-name", "secp521r1", "-genkey", "-noout", "-out"]);
made("raw-p8ec.pem", "openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out"]);
made("raw-p8ec384.pem", "openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out"]);
made("raw-ed25519.pem", "openssl", ["genpkey", "-algorithm", "ED25519", "-out"]);
made("raw-ed448.pem", "openssl", ["genpkey", "-algorithm", "ED448", "-out"]);
made("raw-x25519.pem", "openssl", ["genpkey", "-algorithm", "X25519", "-out"]);

/** Each shape: [name, text made from the PEM text and the DER's base64, the finding's rule]. */
const pemText = (file: string): string => readFileSync(join(dir, file), "utf8").replace(/^(?!-----BEGIN)[\s\S]*?(?=-----BEGIN)/, "").trimEnd();
const RAW_SHAPES: [string, (pem: string, der64: string) => string, string][] = [
  ["one line in an env assignment", (_p, d) => `JWT_PRIVATE_KEY=${d}\n`, "pkcs-unarmored-private-key"],
  ["a JSON string", (_p, d) => JSON.stringify({ private_key: d }), "pkcs-unarmored-private-key"],
  ["DER base64 -w0 alone", (_p, d) => d, "pkcs-unarmored-private-key"],
  ["the body wrapped at 64", (p) => `key:\n${lines(p).slice(1, -1).join("\n")}\n`, "pkcs-unarmored-private-key"],
  ["the body wrapped at 76 (base64 without -w0)", (_p, d) => `key:\n${(d.match(/.{1,76}/g) ?? []).join("\n")}\n`, "pkcs-unarmored-private-key"],
  ["PEM without line breaks", (p) => `key=${p.replace(/\n/g, "")}`, "private-key"],
  ["PEM with spaces for line breaks", (p) => `key=${p.replace(/\n/g, " ")}`, "private-key"],
];

describe.each(RAW)("%s key from openssl, body alone or without line breaks", (_name, file, tool, extra) => {
  const pem = pemText(file);
  const der64 = derOf(tool, file, extra).toString("base64");
  it("has the PEM body as its DER's base64", () => expect(lines(pem).slice(1, -1).join("")).toBe(der64));
  it.each(RAW_SHAPES)("is reported in %s at the body's start", (_shape, shape, ruleId) => {
    const text = shape(pem, der64);
    const at = text.indexOf(der64.slice(0, 32));
    expect(at).toBeGreaterThan(-1);
    expect(scan(text).map((f) => [f.ruleId, f.offset])).toEqual([[ruleId, at]]);
  });
  // try18 F2: the DER in hex (one line, `xxd -p` of it, uppercase after 0x) and in base64url; each
  // found at its first digit or character, with encoding hex for the hex forms.
  const der = Buffer.from(der64, "base64");
  const xxdP = execFileSync("xxd", ["-p"], { input: der, encoding: "latin1" });
  it.each([
    ["hex on one line (Go's hex.EncodeToString)", `KEY=${der.toString("hex")}\n`, der.toString("hex"), "hex"],
    ["hex in uppercase after 0x", `key = 0x${der.toString("hex").toUpperCase()};`, der.toString("hex").toUpperCase(), "hex"],
    ["openssl … -outform DER | xxd -p", `$ openssl pkey -outform DER | xxd -p\n${xxdP}`, xxdP.slice(0, 60), "hex"],
    ["base64url on one line", `JWT_PRIVATE_KEY=${der.toString("base64url")}\n`, der.toString("base64url"), undefined],
    ["base64url in a JSON string", JSON.stringify({ d: der.toString("base64url") }), der.toString("base64url"), undefined],
  ])("is reported as its DER in %s at its start", (_shape, text, encoded, encoding) => {
    const at = text.indexOf(encoded.slice(0, 32));
    expect(at).toBeGreaterThan(-1);
    expect(scan(text).map((f) => [f.ruleId, f.offset, f.encoding])).toEqual([["pkcs-unarmored-private-key", at, encoding]]);
  });
});

describe("public keys, certificates and CSRs are not private keys", () => {
  const key = join(dir, "pkcs8.pem");
  const ecKey = join(dir, "raw-p8ec.pem");
  const run = (args: string[]): string => execFileSync("openssl", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const PUBLIC: [string, string][] = [
    ["an RSA public key (SubjectPublicKeyInfo)", run(["pkey", "-in", key, "-pubout"])],
    ["an RSA public key (PKCS#1 RSAPublicKey)", run(["rsa", "-in", key, "-RSAPublicKey_out"])],
    ["an EC public key", run(["pkey", "-in", ecKey, "-pubout"])],
    ["an Ed25519 public key", run(["pkey", "-in", join(dir, "raw-ed25519.pem"), "-pubout"])],
    ["a self-signed RSA certificate (openssl req -x509)", run(["req", "-x509", "-key", key, "-subj", "/CN=teammem.test", "-days", "1"])],
    ["a self-signed EC certificate", run(["req", "-x509", "-key", ecKey, "-subj", "/CN=teammem.test", "-days", "1"])],
    ["an RSA CSR", run(["req", "-new", "-key", key, "-subj", "/CN=teammem.test"])],
    ["an EC CSR", run(["req", "-new", "-key", ecKey, "-subj", "/CN=teammem.test"])],
  ];
  describe.each(PUBLIC)("%s", (_name, text) => {
    const body = lines(text).slice(1, -1);
    it("starts with MI or MC", () => expect(body[0]).toMatch(/^M[A-Z]/));
    it.each([
      ["as PEM", text],
      ["as PEM without line breaks", text.trimEnd().replace(/\n/g, "")],
      ["one line in an env assignment", `PUBLIC=${body.join("")}`],
      ["wrapped at 64", body.join("\n")],
      ["in a JSON string", JSON.stringify({ cert: body.join("") })],
      ["as its DER in hex", `DER=${Buffer.from(body.join(""), "base64").toString("hex")}`],
      ["as its DER in base64url", `DER=${Buffer.from(body.join(""), "base64").toString("base64url")}`],
      ["as xxd -p of its DER", execFileSync("xxd", ["-p"], { input: Buffer.from(body.join(""), "base64"), encoding: "latin1" })],
    ])("is not reported %s", (_shape, t) => expect(found(t)).toEqual([]));
  });
});
