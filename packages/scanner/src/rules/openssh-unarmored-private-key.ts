import { prng } from "../fakes.js";
import type { Rule } from "../rule.js";
import { BODY_BREAK, blockBody } from "../rule-helpers/block-lines.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * OpenSSH private key body without its BEGIN/END lines (try14 F5: a key pasted without its armor
 * lines). Every OpenSSH private key's binary starts with the magic `openssh-key-v1\0` and the
 * length of the cipher name (3 zero bytes), so its base64 starts with `b3BlbnNzaC1rZXktdjEAAAAA`.
 * Format: OpenSSH `PROTOCOL.key`
 * (https://github.com/openssh/openssh-portable/blob/master/PROTOCOL.key): the magic, then
 * `string ciphername`, `string kdfname`, `string kdfoptions`, `uint32 number of keys` (always 1),
 * `string publickey` (itself `string keytype` then key fields), then the private section.
 *
 * 160 body characters (120 bytes) are read, across line breaks and leads as in the armored rules
 * (`rule-helpers/block-lines.ts`); every real key is longer (an unencrypted ed25519 key, the
 * smallest, has ~320). `validate` decodes them and checks the structure above (cipher and KDF
 * names, KDF options of at most 64 bytes, one key, a public key of 32 to 16 384 bytes whose type
 * name is 3 to 64 name characters), then that the characters after the fixed header look random:
 * a truncated or hand-made body (`…c2gtZW...`, a run of `A`) is not reported. The base64 of an
 * OpenSSH *public* key (`ssh-ed25519 AAAAC3NzaC1lZDI1NTE5…`) never holds the magic. The finding is
 * the first 64 body characters: the same span as `openssh-private-key`'s when the BEGIN line is
 * there, so the armored rule, earlier in the catalog, reports it once.
 */
const MAGIC = "openssh-key-v1\0";
const NAME = /^[A-Za-z0-9@._-]{1,64}$/;

/** Reads an SSH `string` (uint32 length, then bytes) at `at`; undefined past `buf`'s end. */
function sshString(buf: Buffer, at: number, max: number): { value: Buffer; next: number } | undefined {
  if (at + 4 > buf.length) return undefined;
  const length = buf.readUInt32BE(at);
  if (length > max) return undefined;
  return { value: buf.subarray(at + 4, Math.min(buf.length, at + 4 + length)), next: at + 4 + length };
}

/** True when `body` (base64, breaks removed) decodes to the start of an `openssh-key-v1` key with a random part. */
export function isOpensshKeyStart(body: string): boolean {
  const buf = Buffer.from(body.slice(0, body.length - (body.length % 4)), "base64");
  if (buf.subarray(0, MAGIC.length).toString("latin1") !== MAGIC) return false;
  const cipher = sshString(buf, MAGIC.length, 64);
  if (!cipher || !NAME.test(cipher.value.toString("latin1"))) return false;
  const kdf = sshString(buf, cipher.next, 64);
  if (!kdf || !NAME.test(kdf.value.toString("latin1"))) return false;
  const kdfOptions = sshString(buf, kdf.next, 64);
  if (!kdfOptions || kdfOptions.next + 4 > buf.length || buf.readUInt32BE(kdfOptions.next) !== 1) return false;
  const publicKeyAt = kdfOptions.next + 4;
  if (publicKeyAt + 4 > buf.length) return false;
  const publicKeyLength = buf.readUInt32BE(publicKeyAt);
  if (publicKeyLength < 32 || publicKeyLength > 16_384) return false;
  const keyType = sshString(buf, publicKeyAt + 4, 64);
  if (!keyType || keyType.next > buf.length || keyType.value.length < 3 || !NAME.test(keyType.value.toString("latin1"))) return false;
  // The random part: from the key type's end (the base64 character holding its last byte) on.
  const randomFrom = Math.ceil((keyType.next * 4) / 3);
  if (body.length - randomFrom < 24) return false;
  return isPlausibleSecret(body.slice(randomFrom), { minEntropy: 3, maxRun: 12, maxSequence: Infinity });
}

/** A fake key body (not a key: random bytes in the key's structure), base64 in lines of 70 like ssh-keygen's. */
export function fakeOpensshBody(seed: number, keyType = "ssh-ed25519", publicBytes = 32): string {
  const next = prng(seed);
  const random = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => Math.floor(next() * 256)));
  const str = (b: Buffer | string): Buffer => {
    const v = typeof b === "string" ? Buffer.from(b, "latin1") : b;
    const len = Buffer.alloc(4);
    len.writeUInt32BE(v.length);
    return Buffer.concat([len, v]);
  };
  const one = Buffer.from([0, 0, 0, 1]);
  const publicKey = Buffer.concat([str(keyType), str(random(publicBytes))]);
  const privateSection = Buffer.concat([random(8), str(keyType), str(random(publicBytes)), str(random(64)), str("user@host")]);
  const bin = Buffer.concat([Buffer.from(MAGIC, "latin1"), str("none"), str("none"), str(""), one, str(publicKey), str(privateSection)]);
  return (bin.toString("base64").match(/.{1,70}/g) ?? []).join("\n");
}

const rule: Rule = {
  id: "openssh-unarmored-private-key",
  label: "OpenSSH private key (body without BEGIN line)",
  prefixes: ["b3BlbnNzaC1rZXktdjE"],
  pattern: new RegExp(
    String.raw`(?<body>(?<secret>b3BlbnNzaC1rZXktdjEAAAAA[A-Za-z0-9+/]{8}(?:${BODY_BREAK})?(?:[A-Za-z0-9+/=](?:${BODY_BREAK})?){32})(?:[A-Za-z0-9+/=](?:${BODY_BREAK})?){96})`,
    "y",
  ),
  validate: (body) => isOpensshKeyStart(blockBody(body)),
  examples: () => ({
    positive: [
      `key body:\n${fakeOpensshBody(1)}\n`,
      `- ${fakeOpensshBody(2, "ssh-rsa", 257).replace(/\n/g, "\n- ")}`, // a list item per line
      `"key": "${fakeOpensshBody(3, "ecdsa-sha2-nistp256", 65).replace(/\n/g, "\\n")}"`, // JSON string
      fakeOpensshBody(4).replace(/\n/g, " "), // one line
    ],
    negative: [
      "OpenSSH private keys start with b3BlbnNzaC1rZXktdjE (base64 of openssh-key-v1)", // the magic alone
      fakeOpensshBody(5).slice(0, 83) + "...", // truncated after the fixed header
      `${fakeOpensshBody(6).replace(/\n/g, "").slice(0, 83)}${"A".repeat(120)}`, // placeholder after the header
      `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${"Cj".repeat(20)}x user@host`, // a public key line
      Buffer.from(`openssh-key-v1\0${"\u0001".repeat(150)}`, "latin1").toString("base64"), // the magic, then no key structure
    ],
  }),
};
export default rule;
