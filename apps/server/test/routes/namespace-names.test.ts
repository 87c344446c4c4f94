/**
 * Namespace names with '/' (issue 13): `owner/repo` and `group/subgroup/repo` travel percent-encoded
 * as one path segment (`acme%2Fweb`) on every /v1/namespaces/:namespace route; hostile names are
 * refused with invalid_request and store nothing.
 */
import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { auditEvents } from "../../src/db/schema.js";
import { DATABASE_KINDS } from "../../src/testing.js";
import { createHarness, opId, useHarness } from "./harness.js";

const enc = encodeURIComponent;

describe.each(DATABASE_KINDS)("owner/repo namespaces on %s", (kind) => {
  const h = useHarness(kind);

  it.each(["acme/web", "group/subgroup/repo"])("serves %s on every namespace route, URL-encoded", async (ns) => {
    const base = `/v1/namespaces/${enc(ns)}`;
    const created = await h.call("PUT", base, h.tokens.member);
    expect([created.statusCode, created.json()]).toEqual([201, { name: ns, cursor: 0, created: true, entries: 0, server: expect.objectContaining({ epoch: expect.any(String) }) }]);
    const write = await h.call("POST", `${base}/batch`, h.tokens.member, {
      operations: [{ opId: opId("w"), path: "conventions.md", baseVersion: 0, content: "use pnpm\n" }],
    });
    expect(write.json().results[0]).toMatchObject({ status: "applied", version: 1, cursor: 1 });
    const changes = await h.call("GET", `${base}/changes?since=0`, h.tokens.reader);
    expect(changes.json().changes).toEqual([expect.objectContaining({ path: "conventions.md", version: 1, content: "use pnpm\n" })]);
    const entry = await h.call("GET", `${base}/entry?path=conventions.md`, h.tokens.reader);
    expect(entry.json()).toMatchObject({ path: "conventions.md", version: 1 });
    const history = await h.call("GET", `${base}/history?path=conventions.md`, h.tokens.reader);
    expect(history.statusCode).toBe(200);
    const conflicts = await h.call("GET", `${base}/conflicts`, h.tokens.reader);
    expect(conflicts.statusCode).toBe(200);
    const list = await h.call("GET", "/v1/namespaces", h.tokens.reader);
    expect(list.json().namespaces).toContainEqual({ name: ns, cursor: 1, entries: 1 });
    // the lower-case encoding names the same namespace
    const lower = await h.call("GET", `/v1/namespaces/${enc(ns).replaceAll("%2F", "%2f")}/changes?since=0`, h.tokens.reader);
    expect(lower.json().changes).toHaveLength(1);
  });

  it("serves the longest names: a 128-character segment and 255 characters in 32 segments", async () => {
    const long = [
      "x".repeat(128),
      `${"a".repeat(127)}/${"b".repeat(127)}`,
      [...Array.from({ length: 30 }, (_, i) => String(i % 10)), "r".repeat(128), "s".repeat(66)].join("/"),
    ];
    for (const ns of long) {
      expect(ns.length === 128 || ns.length === 255).toBe(true);
      const res = await h.call("PUT", `/v1/namespaces/${enc(ns)}`, h.tokens.member);
      expect([res.statusCode, res.json()]).toEqual([201, { name: ns, cursor: 0, created: true, entries: 0, server: expect.objectContaining({ epoch: expect.any(String) }) }]);
    }
  });

  it("keeps acme/web, acme-web and acme/web/x apart", async () => {
    for (const ns of ["sep/one", "sep-one", "sep/one/x"]) {
      await h.call("POST", `/v1/namespaces/${enc(ns)}/batch`, h.tokens.member, {
        operations: [{ opId: opId("s"), path: "who.md", baseVersion: 0, content: ns }],
      });
    }
    for (const ns of ["sep/one", "sep-one", "sep/one/x"]) {
      const res = await h.call("GET", `/v1/namespaces/${enc(ns)}/entry?path=who.md`, h.tokens.reader);
      expect(res.json()).toMatchObject({ version: 1, content: ns });
    }
  });

  it.each([
    ["..", "%2E%2E"],
    ["/x", enc("/x")],
    ["a//b", enc("a//b")],
    ["acme/web/", enc("acme/web/")],
    ["acme/../web", enc("acme/../web")],
    ["acme/.hidden", enc("acme/.hidden")],
    ["over-long", enc(`${"a".repeat(128)}/${"b".repeat(127)}`)],
    ["a NUL", "a%00b"],
    ["a newline", "acme%2F%0Aweb"],
    ["a space", "acme%20web"],
    ["a double-encoded slash", "acme%252Fweb"],
    ["a colon", enc("host:acme/web")],
  ])("refuses the namespace %s with invalid_request (or no route) and creates nothing", async (_label, encoded) => {
    const before = (await h.call("GET", "/v1/namespaces", h.tokens.reader)).json();
    const put = await h.call("PUT", `/v1/namespaces/${encoded}`, h.tokens.member);
    const batch = await h.call("POST", `/v1/namespaces/${encoded}/batch`, h.tokens.member, {
      operations: [{ opId: opId("h"), path: "x.md", baseVersion: 0, content: "x" }],
    });
    for (const res of [put, batch]) {
      expect([400, 404]).toContain(res.statusCode);
      expect(["invalid_request", "not_found"]).toContain(res.json().code);
    }
    expect((await h.call("GET", "/v1/namespaces", h.tokens.reader)).json()).toEqual(before);
  });

  it("names the rule in the refusal of an invalid name", async () => {
    const res = await h.call("PUT", `/v1/namespaces/${enc("a//b")}`, h.tokens.member);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: "invalid_request", message: expect.stringContaining("segments joined by '/'") });
  });

  it("refuses an owner/repo name holding a credential with secret_detected and audits it redacted", async () => {
    const token = fakeGithubPat();
    const res = await h.call("PUT", `/v1/namespaces/${enc(`acme/${token}`)}`, h.tokens.member);
    expect([res.statusCode, res.json().code]).toEqual([422, "secret_detected"]);
    expect(JSON.stringify(res.json())).not.toContain(token);
    const audit = (await h.db.select().from(auditEvents)).filter((e) => e.namespace?.startsWith("acme/"));
    expect(audit.map((e) => e.namespace)).toEqual(["acme/[REDACTED:github-pat]"]);
  });
});

describe("owner/repo namespaces over a real socket", () => {
  it("decodes %2F in the namespace segment and 404s an unencoded slash", async () => {
    const h = await createHarness("pglite");
    try {
      await h.app.listen({ host: "127.0.0.1", port: 0 });
      const address = h.app.server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      const call = async (method: string, path: string) => {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { authorization: `Bearer ${h.tokens.member}` } });
        return { status: res.status, json: async () => (await res.json()) as { code?: string; name?: string; cursor?: number } };
      };
      const put = await call("PUT", "/v1/namespaces/acme%2Fweb");
      expect([put.status, await put.json()]).toEqual([201, { name: "acme/web", cursor: 0, created: true, entries: 0, server: expect.objectContaining({ epoch: expect.any(String) }) }]);
      const changes = await call("GET", "/v1/namespaces/group%2Fsub%2Frepo/changes?since=0");
      expect(changes.status).toBe(404); // never created: a clean not_found, not a routing error
      expect((await changes.json()).code).toBe("not_found");
      const raw = await call("GET", "/v1/namespaces/acme/web/changes?since=0");
      expect([raw.status, (await raw.json()).code]).toEqual([404, "not_found"]);
      const dots = await call("PUT", "/v1/namespaces/acme%2F..%2Fweb");
      expect([dots.status, (await dots.json()).code]).toEqual([400, "invalid_request"]);
    } finally {
      await h.close();
    }
  });
});
