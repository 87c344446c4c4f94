import { describe, expect, it } from "vitest";
import { NamespaceName } from "./messages/common.js";
import { NamespaceParams } from "./messages/namespaces.js";
import { checkNamespaceName, MAX_NAMESPACE_LENGTH, NAMESPACE_PATTERN, namespaceFoldKey, type NamespaceRule } from "./namespace-names.js";

const accepted = [
  "acme-web",
  "acme__web",
  "a",
  "0",
  "repo.v2",
  "acme/web",
  "Acme/Web",
  "group/subgroup/repo",
  "gitlab-org/ci-cd/runner.tools/gitlab-runner",
  "a.b/c_d/e-f",
  "x".repeat(128), // the longest single-segment name accepted before segments existed
  `${"o".repeat(39)}/${"r".repeat(100)}`, // GitHub's longest owner and repository names
  Array.from({ length: 32 }, (_, i) => `g${i}`).join("/"),
  `${"a".repeat(127)}/${"b".repeat(127)}`, // 255 characters
];

const refused: [string, NamespaceRule][] = [
  ["", "empty"],
  ["..", "dot_segment"],
  [".", "dot_segment"],
  ["acme/..", "dot_segment"],
  ["../etc", "dot_segment"],
  ["acme/./web", "dot_segment"],
  ["/x", "leading_slash"],
  ["/acme/web", "leading_slash"],
  ["a//b", "empty_segment"],
  ["acme/web/", "trailing_slash"],
  ["acme/", "trailing_slash"],
  ["/", "leading_slash"],
  ["-bad", "segment_start"],
  ["acme/.hidden", "segment_start"],
  ["acme/_web", "segment_start"],
  ["acme web", "invalid_character"],
  ["acme%2Fweb", "invalid_character"], // an encoded slash is not decoded twice
  ["acme\\web", "invalid_character"],
  ["host:acme/web", "invalid_character"],
  ["user@host/acme", "invalid_character"],
  ["acme/wéb", "invalid_character"],
  ["acme/web?x=1", "invalid_character"],
  ["acme/web#frag", "invalid_character"],
  ["a\u0000b", "control_character"],
  ["acme/\nweb", "control_character"],
  ["acme\u007f", "control_character"],
  ["acme\u0085", "control_character"],
  ["x".repeat(129), "segment_too_long"],
  [`acme/${"x".repeat(129)}`, "segment_too_long"],
  [`${"a".repeat(128)}/${"b".repeat(127)}`, "too_long"], // 256 characters
  ["x".repeat(10_000), "too_long"],
  [Array.from({ length: 33 }, (_, i) => `g${i}`).join("/"), "too_many_segments"],
];

describe("namespace names", () => {
  it.each(accepted)("accepts %j", (name) => {
    expect(checkNamespaceName(name)).toEqual({ ok: true, name });
    expect(NAMESPACE_PATTERN.test(name)).toBe(true);
    expect(NamespaceName.safeParse(name).success).toBe(true);
  });

  it.each(refused)("refuses %j by rule %s, as the pattern and the schema do", (name, rule) => {
    expect(checkNamespaceName(name)).toMatchObject({ ok: false, rule });
    expect(NAMESPACE_PATTERN.test(name)).toBe(false);
    expect(NamespaceName.safeParse(name).success).toBe(false);
  });

  it("never echoes the refused name in its message (a name may hold a credential)", () => {
    const name = "acme/secret value";
    const check = checkNamespaceName(name);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).not.toContain("secret value");
  });

  it("accepts exactly the names the pattern accepts, over every 1-3 character string of a mixed alphabet", () => {
    const alphabet = ["a", "Z", "0", ".", "_", "-", "/", " ", "%", "\u0000"];
    const names: string[] = [];
    for (const a of alphabet) {
      names.push(a);
      for (const b of alphabet) {
        names.push(a + b);
        for (const c of alphabet) names.push(a + b + c);
      }
    }
    for (const name of names) expect([name, checkNamespaceName(name).ok]).toEqual([name, NAMESPACE_PATTERN.test(name)]);
  });

  it("keeps the whole-name limit a single file name long", () => {
    expect(MAX_NAMESPACE_LENGTH).toBeLessThanOrEqual(255);
  });

  it("is the rule of every /v1/namespaces/:namespace route's parameter", () => {
    expect(NamespaceParams.safeParse({ namespace: "group/subgroup/repo" }).success).toBe(true);
    expect(NamespaceParams.safeParse({ namespace: "a//b" }).success).toBe(false);
  });
});

describe("namespaceFoldKey", () => {
  it.each([
    ["acme/web", "acme/web"],
    ["ACME/Web", "acme/web"],
    ["acme/web.git", "acme/web"],
    ["Acme/Web.GIT", "acme/web"],
    ["acme/web.git.git", "acme/web.git"], // one .git only, as the remote-derived name strips one
    ["acme.git/web", "acme.git/web"], // only at the end
    ["acme-web", "acme-web"],
  ])("folds %s to %s", (name, key) => expect(namespaceFoldKey(name)).toBe(key));
});
