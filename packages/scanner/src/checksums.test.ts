import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { base62, crc32, githubChecksum, hasGithubChecksum } from "./checksums.js";
import { breakChecksum, fakeGithubToken, fakeNpmToken, randomChars } from "./fakes.js";

describe("crc32", () => {
  it("matches zlib's CRC-32", () => {
    for (let seed = 1; seed < 50; seed++) {
      const s = randomChars(30 + seed, seed);
      expect(crc32(s)).toBe(zlib.crc32(s));
    }
    expect(crc32("")).toBe(0);
    expect(crc32("123456789")).toBe(0xcbf43926);
  });
});

describe("base62", () => {
  it("uses digits, upper, lower case and pads with 0", () => {
    expect(base62(0, 6)).toBe("000000");
    expect(base62(61)).toBe("z");
    expect(base62(62)).toBe("10");
    expect(base62(10, 3)).toBe("00A");
    expect(base62(36)).toBe("a");
  });
  it("rejects negative numbers", () => expect(() => base62(-1)).toThrow(RangeError));
});

describe("hasGithubChecksum", () => {
  it("accepts generated GitHub and npm tokens of every prefix", () => {
    for (const p of ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]) expect(hasGithubChecksum(fakeGithubToken(p, 7))).toBe(true);
    expect(hasGithubChecksum(fakeNpmToken(3))).toBe(true);
  });
  it("accepts real-format samples from the secretlint suite (built from pieces)", () => {
    // Public test fixtures of secretlint (revoked/never-real); split so no scanner trips on this file.
    expect(hasGithubChecksum("ghp" + "_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx")).toBe(true);
    expect(hasGithubChecksum("npm" + "_qkJaB6MffYVzZXWqmcoF49yrUxP3wf0LsakP")).toBe(true);
  });
  it("rejects wrong checksums, wrong lengths and placeholders", () => {
    expect(hasGithubChecksum(breakChecksum(fakeGithubToken("ghp_", 7)))).toBe(false);
    expect(hasGithubChecksum("ghp_" + "x".repeat(36))).toBe(false);
    expect(hasGithubChecksum(fakeGithubToken("ghp_", 7).slice(0, -1))).toBe(false);
    expect(hasGithubChecksum("gha_" + fakeGithubToken("ghp_", 7).slice(4))).toBe(false);
  });
  it("checksums only the 30 random characters", () => {
    const random = randomChars(30, 5);
    expect(fakeGithubToken("ghp_", 5)).toBe("ghp_" + random + githubChecksum(random));
  });
});
