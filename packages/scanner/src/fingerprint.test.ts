import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fingerprint, loadFingerprintKey } from "./fingerprint.js";

describe("loadFingerprintKey", () => {
  it("creates a 32-byte key file (mode 0600) once and then reads it back", () => {
    const path = join(mkdtempSync(join(tmpdir(), "teammem-key-")), "nested", "key");
    const a = loadFingerprintKey(path);
    expect(a).toHaveLength(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadFingerprintKey(path).equals(a)).toBe(true);
    expect(readFileSync(path, "utf8").trim()).toBe(a.toString("hex"));
  });
  it("refuses a file that is not a key", () => {
    const path = join(mkdtempSync(join(tmpdir(), "teammem-key-")), "key");
    writeFileSync(path, "hello");
    expect(() => loadFingerprintKey(path)).toThrow(/not a fingerprint key .*\(key_file_invalid\)/);
  });
});

describe("fingerprint", () => {
  it("depends on the key and is 32 hex characters", () => {
    expect(fingerprint("v", "a")).toMatch(/^[0-9a-f]{32}$/);
    expect(fingerprint("v", "a")).not.toBe(fingerprint("v", "b"));
    expect(fingerprint("v", Buffer.from("a"))).toBe(fingerprint("v", "a"));
  });
});
