import { createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fingerprint, loadFingerprintKey } from "./fingerprint.js";

describe("loadFingerprintKey", () => {
  it("creates a key file of 64 hex characters (32 random bytes, mode 0600) once and then reads it back", () => {
    const path = join(mkdtempSync(join(tmpdir(), "teammem-key-")), "nested", "key");
    const a = loadFingerprintKey(path);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadFingerprintKey(path)).toBe(a);
    expect(readFileSync(path, "utf8")).toBe(`${a}\n`);
  });
  it("returns the key as its hex TEXT, the HMAC key the team's server and clients use, from a hex file or a scan-policy.json", () => {
    const dir = mkdtempSync(join(tmpdir(), "teammem-key-"));
    const teamKey = randomBytes(32).toString("hex"); // as the server issues it
    writeFileSync(join(dir, "hex"), `  ${teamKey.toUpperCase()}\r\n`);
    writeFileSync(join(dir, "scan-policy.json"), JSON.stringify({ fingerprintKey: { id: 3, key: teamKey }, allowedFingerprints: [], fetchedAt: "2026-01-01T00:00:00.000Z" }));
    for (const file of ["hex", "scan-policy.json"]) {
      const key = loadFingerprintKey(join(dir, file));
      expect(key).toBe(teamKey);
      // The server's definition, spelled out: HMAC-SHA-256 keyed with the 64 characters, not the 32 bytes.
      expect(fingerprint("value", key)).toBe(createHmac("sha256", teamKey).update("value").digest("hex").slice(0, 32));
      expect(fingerprint("value", key)).not.toBe(fingerprint("value", Buffer.from(teamKey, "hex")));
    }
  });
  it("refuses a file that is not a key", () => {
    const path = join(mkdtempSync(join(tmpdir(), "teammem-key-")), "key");
    writeFileSync(path, "hello");
    expect(() => loadFingerprintKey(path)).toThrow(/not a fingerprint key: a character other than 0-9, a-f .*\(key_file_invalid\)/);
  });
});

describe("fingerprint", () => {
  it("depends on the key and is 32 hex characters", () => {
    expect(fingerprint("v", "a")).toMatch(/^[0-9a-f]{32}$/);
    expect(fingerprint("v", "a")).not.toBe(fingerprint("v", "b"));
    expect(fingerprint("v", Buffer.from("a"))).toBe(fingerprint("v", "a"));
  });
});
