import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { DATABASE_KINDS, dumpAllRows } from "../../src/testing.js";
import { useHarness } from "./harness.js";

describe.each(DATABASE_KINDS)("an opId holding a credential on %s", (kind) => {
  const h = useHarness(kind);

  it("is refused with 422 secret_detected naming the field, and stored nowhere", async () => {
    const token = fakeGithubPat();
    const res = await h.call("POST", "/v1/namespaces/opids/batch", h.tokens.member, {
      operations: [{ opId: token, path: "a.md", baseVersion: 0, content: "hello\n" }],
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: "secret_detected", details: { field: "opId" } });
    expect(res.body).not.toContain(token);
    expect(await dumpAllRows({ db: h.db })).not.toContain(token);
  });
});
