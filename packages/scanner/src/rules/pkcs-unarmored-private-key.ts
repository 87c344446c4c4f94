import { prng } from "../fakes.js";
import type { Rule } from "../rule.js";
import { BODY_BREAK, blockBody, FIRST_RUN } from "../rule-helpers/block-lines.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * PKCS#8, PKCS#1 (RSA) and SEC 1 (EC) private key bodies without their BEGIN/END lines (try17 H2):
 * the base64 of the DER alone, as an environment variable holds it
 * (`JWT_PRIVATE_KEY=MIIEvAIBADANBgkqhkiG9w0B…`), on one line, wrapped, or the base64 of a DER file
 * (`openssl … -outform DER | base64 -w0`). The model is `openssh-unarmored-private-key`.
 *
 * Every such key is a DER SEQUENCE (`30`, then its length: one byte below 128, `81 LL` or
 * `82 LL LL`) whose first element is INTEGER version 0 or 1 (`02 01 0v`), then: PKCS#8 (RFC 5208,
 * RFC 5958) the AlgorithmIdentifier `30 LL 06 LL <OID>` (rsaEncryption 1.2.840.113549.1.1.1,
 * id-ecPublicKey 1.2.840.10045.2.1, Ed25519/Ed448/X25519/X448 1.3.101.110-113) and an OCTET STRING
 * holding the key; PKCS#1 (RFC 8017 A.1.2) the modulus, a long INTEGER; SEC 1 (RFC 5915) version 1
 * and an OCTET STRING of 16 to 72 bytes. The length bytes vary with the key's size, and so do the
 * base64 characters that hold them, so each prefix is the fixed base64 after them and the `lead`
 * (in the lookbehind) is the sequence's length in base64 (`MII…`: `30 82 LL LL`, 6 characters to
 * the next 4-character group boundary but one; `MI[GH]…`: `30 81 LL`; `M??C`: `30 LL 02`), each
 * lead tied by a lookahead to the prefixes of its alignment:
 * - `MII???` + `IBADANBgkqhkiG9w0BAQEF`: PKCS#8 RSA; `IBAAK[BC]`: PKCS#1 RSA (modulus `02 81`/`02 82`);
 * - `MI[GH]?` + `AgEAMB[AM]GByqGSM49AgE`: PKCS#8 EC; `AgEBB`: SEC 1 with a 48- or 66-byte key (P-384, P-521);
 * - `M??C` + `AQEEI`: SEC 1 with a 32-byte key (P-256, secp256k1); `AQAwBQYDK2V`: PKCS#8 Ed25519,
 *   Ed448, X25519, X448.
 * A public key (SubjectPublicKeyInfo `MIIBIjANBgkq…`: no version), a certificate or a CSR
 * (`MII…CCA…`: a SEQUENCE first) never has these after its lead.
 *
 * 64 body characters (48 bytes: a whole Ed25519 key) are read, the first {@link FIRST_RUN} on one
 * line, the rest across line breaks and leads as in the armored rules (`rule-helpers/block-lines.ts`),
 * so the finding is the span of `private-key`'s when the BEGIN line is there, and this rule yields
 * to it. `validate` decodes them and checks the structure above (tag, length form, version, OID,
 * the key's OCTET STRING or modulus), then that the characters of the key material in view look
 * random (entropy, runs, no 5 characters twice): a hand-made body (`MIIEvQIBADANBgkqhkiG9w0BAQEFAASC`
 * then `AAAA…`, a header repeated) is not reported.
 * An encrypted PKCS#8 body (`MIIFHDBOBgkqhkiG9w0BBQ0w…`, EncryptedPrivateKeyInfo) is not read.
 */
/** A body character: base64 or base64url (`-`, `_`: a key written URL-safe; try18 F2). */
const X = "[A-Za-z0-9+/=_-]";

/** OIDs (content bytes, hex) a PKCS#8 key's algorithm may have. */
const OIDS = new Set([
  "2a864886f70d010101", // rsaEncryption
  "2a864886f70d01010a", // RSASSA-PSS
  "2a8648ce3d0201", // id-ecPublicKey
  "2b656e", // X25519
  "2b656f", // X448
  "2b6570", // Ed25519
  "2b6571", // Ed448
]);

interface Tlv {
  readonly tag: number;
  readonly length: number;
  /** Offset of the content's first byte. */
  readonly start: number;
}

/** The DER tag and length at `at` (short form, `81 LL` of at least 128, `82 LL LL` of at least 256); undefined if malformed or past `buf`'s end. */
function tlv(buf: Buffer, at: number): Tlv | undefined {
  if (at + 2 > buf.length) return undefined;
  const tag = buf[at]!;
  const first = buf[at + 1]!;
  if (first < 0x80) return { tag, length: first, start: at + 2 };
  if (first === 0x81 && at + 3 <= buf.length && buf[at + 2]! >= 0x80) return { tag, length: buf[at + 2]!, start: at + 3 };
  if (first === 0x82 && at + 4 <= buf.length && buf[at + 2]! >= 1) return { tag, length: buf.readUInt16BE(at + 2), start: at + 4 };
  return undefined;
}

/** Where the key material starts in `buf` (48 or fewer bytes of a DER private key), or undefined when `buf` is not the start of a PKCS#8, PKCS#1 or SEC 1 private key. */
function keyMaterialAt(buf: Buffer): number | undefined {
  const outer = tlv(buf, 0);
  if (!outer || outer.tag !== 0x30 || outer.length < 34) return undefined;
  const version = tlv(buf, outer.start);
  if (!version || version.tag !== 0x02 || version.length !== 1 || version.start >= buf.length || buf[version.start]! > 1) return undefined;
  const v = buf[version.start]!;
  const next = tlv(buf, version.start + 1);
  if (!next) return undefined;
  if (next.tag === 0x30) {
    // PKCS#8: AlgorithmIdentifier { OID, parameters }, then the OCTET STRING of the key.
    const oid = tlv(buf, next.start);
    if (!oid || oid.tag !== 0x06 || oid.start + oid.length > buf.length || !OIDS.has(buf.subarray(oid.start, oid.start + oid.length).toString("hex"))) return undefined;
    const key = tlv(buf, next.start + next.length);
    if (!key || key.tag !== 0x04 || key.length < 32) return undefined;
    const inner = tlv(buf, key.start);
    if (!inner) return undefined;
    if (inner.tag === 0x04) return inner.start; // Edwards and Montgomery keys: the bytes themselves
    if (inner.tag !== 0x30) return undefined;
    // RSA (PKCS#1) or EC (SEC 1) inside: version, then the modulus or the key's OCTET STRING.
    const innerVersion = tlv(buf, inner.start);
    if (!innerVersion || innerVersion.tag !== 0x02 || innerVersion.length !== 1) return undefined;
    const material = tlv(buf, innerVersion.start + 1);
    if (!material || (material.tag !== 0x02 && material.tag !== 0x04)) return undefined;
    return material.start + (material.tag === 0x02 ? 1 : 0);
  }
  if (next.tag === 0x02 && next.length >= 64) return next.start + 1; // PKCS#1: the modulus, after its leading 00
  if (next.tag === 0x04 && v === 1 && next.length >= 16 && next.length <= 72) return next.start; // SEC 1: the private key
  return undefined;
}

/** True when `body` (base64, breaks removed) decodes to the start of a DER private key whose key material in view looks random. */
export function isDerPrivateKeyStart(body: string): boolean {
  const buf = Buffer.from(body.slice(0, body.length - (body.length % 4)), "base64");
  const at = keyMaterialAt(buf);
  if (at === undefined) return false;
  // The random part: from the first base64 character wholly inside the key material.
  const random = body.slice(Math.ceil((at * 4) / 3)).replace(/=+$/, "");
  if (random.length < 10 || repeatsFiveChars(random)) return false;
  return isPlausibleSecret(random, { minEntropy: 2.5, maxRun: 6, maxSequence: 8 });
}

/** True when some 5 characters occur twice in `s` (a pattern repeated, `MC4CAQEEIMC4CAQEEI…`; about 1 in 10⁶ random 50-character runs). */
function repeatsFiveChars(s: string): boolean {
  const seen = new Set<string>();
  for (let i = 0; i + 5 <= s.length; i++) {
    const gram = s.slice(i, i + 5);
    if (seen.has(gram)) return true;
    seen.add(gram);
  }
  return false;
}

/** DER headers (hex) of the key kinds the fakes are built as, before their random bytes. */
const FAKE_HEADS = {
  "pkcs8-rsa": "308204bd020100300d06092a864886f70d0101010500048204a7308204a30201000282010100",
  "pkcs1-rsa": "308204a40201000282010100",
  "sec1-p256": "30770201010420",
  "sec1-p384": "3081a40201010430",
  "pkcs8-ec": "308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420",
  "pkcs8-ed25519": "302e020100300506032b657004220420",
} as const;

/** A fake key body (not a key: random bytes after a real DER header, to 48 bytes or more), base64 in lines of `width` (0: one line). */
export function fakeDerBody(seed: number, kind: keyof typeof FAKE_HEADS, width = 64): string {
  const next = prng(seed);
  const head = Buffer.from(FAKE_HEADS[kind], "hex");
  const random = Buffer.from(Array.from({ length: kind === "pkcs8-ed25519" ? 32 : 96 }, () => Math.floor(next() * 256)));
  const b64 = Buffer.concat([head, random]).toString("base64");
  return width > 0 ? (b64.match(new RegExp(`.{1,${width}}`, "g")) ?? []).join("\n") : b64;
}

const rule: Rule = {
  id: "pkcs-unarmored-private-key",
  label: "Private key (PKCS#8, PKCS#1 or SEC 1 body without BEGIN line)",
  prefixes: ["IBADANBgkqhkiG9w0BAQEF", "IBAAK", "AgEAMB", "AgEBB", "AQEEI", "AQAwBQYDK2V"],
  pattern: new RegExp(
    String.raw`(?<=(?<lead>MII${X}{3}(?=IB)|MI[GH]${X}(?=Ag)|M${X}{2}C(?=AQ)))` +
      String.raw`(?:IBADANBgkqhkiG9w0BAQEF${X}{${FIRST_RUN - 28}}|IBAAK[BC]${X}{${FIRST_RUN - 12}}|AgEAMB[AM]GByqGSM49AgE${X}{${FIRST_RUN - 23}}|AgEBB${X}{${FIRST_RUN - 9}}|AQEEI${X}{${FIRST_RUN - 9}}|AQAwBQYDK2V${X}{${FIRST_RUN - 15}})` +
      String.raw`(?:${BODY_BREAK})?(?:${X}(?:${BODY_BREAK})?){${64 - FIRST_RUN}}`,
    "y",
  ),
  yieldsTo: ["private-key"],
  fingerprintOf: blockBody,
  validate: (value) => isDerPrivateKeyStart(blockBody(value)),
  examples: () => ({
    positive: [
      `JWT_PRIVATE_KEY=${fakeDerBody(1, "pkcs8-rsa", 0)}`,
      `RSA_KEY="${fakeDerBody(2, "pkcs1-rsa", 0)}"`,
      `{"key": "${fakeDerBody(3, "sec1-p256", 64).replace(/\n/g, "\\n")}"}`,
      `EC_KEY=${fakeDerBody(4, "sec1-p384", 0)}`,
      `key:\n${fakeDerBody(5, "pkcs8-ec", 64)}\n`,
      // (A line end after it: encoded.test's base64 of an example with this 64-character body last
      // misses it at some alignments; a known gap of the decode layer, see the scanner README.)
      `ED25519_KEY=${fakeDerBody(6, "pkcs8-ed25519", 0)}\n`,
    ],
    negative: [
      `KEY=${fakeDerBody(7, "pkcs8-rsa", 0).slice(0, 40)}...`, // truncated
      `KEY=${fakeDerBody(8, "pkcs8-rsa", 0).slice(0, 52)}${"A".repeat(40)}`, // placeholder after the header
      `PUB=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA${"u1SU1LfVLPHCozMx".repeat(3)}`, // a public key (SubjectPublicKeyInfo)
      `KEY=MIIEvQIBADANBgkqhkiG9w0BAQEFAASC${"Qk1x".repeat(12)}`, // the header, then no key structure
      "MC4CAQEEI".repeat(8), // a SEC 1 header repeated: the key material in view is the header again
    ],
  }),
};
export default rule;
