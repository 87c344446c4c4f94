/**
 * http/reply-serializer.ts: replies written by fast-json-stringify from the zod reply schemas read
 * exactly as zod's serializer wrote them, and a reply that breaks its schema is still a 500.
 */
import { BatchResponse, ChangesResponse, ErrorBody, WriteResponse } from "@teammem/protocol";
import Fastify from "fastify";
import { createSerializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import errors from "../../src/plugins/errors.js";
import { createReplySerializerCompiler, replyJsonSchema, withoutRefinements } from "../../src/http/reply-serializer.js";

const server = { id: "6f1c1b9e-3f7a-4b8e-9d2a-1c2b3d4e5f60", epoch: "0b9d7e3c-1a2b-4c5d-8e9f-0a1b2c3d4e5f" };
const sha = "ab".repeat(32);

/** Reply schemas and values a route may send, among them every shape of a batch result. */
const CASES: [string, z.ZodType, unknown][] = [
  [
    "batch results of every status, optional fields present and absent",
    BatchResponse,
    {
      results: [
        { opId: "op-000001", path: "a.md", status: "applied", version: 3, sha256: sha, deleted: false, cursor: 9 },
        { opId: "op-000002", path: "b.md", status: "applied", version: 4, sha256: null, deleted: true, cursor: 10, renamedFrom: { path: "old.md", version: 2 } },
        { opId: "op-000003", path: "c.md", status: "merged", version: 5, sha256: sha, content: 'line "quoted" \\ é 🙂\n\u0001', cursor: 11, headAuthor: "ann" },
        { opId: "op-000004", path: "d.md", status: "conflict", conflictId: "c-1", headVersion: 2, headSha256: null, headContent: null, cursor: 12 },
        { opId: "op-000005", path: "e.md", status: "conflict", conflictId: "c-2", headVersion: 2, headSha256: sha, headContent: "head\n", cursor: 12, headAuthor: "bob" },
        {
          opId: "op-000006",
          path: "f.md",
          status: "rejected",
          code: "secret_detected",
          message: "held back",
          details: { limit: 3, nested: { list: [1, "two", null] } },
          findings: [{ ruleId: "github-pat", label: "GitHub token", line: 3, column: 7 }],
        },
        { opId: "op-000007", path: "g.md", status: "rejected", code: "invalid_path", message: "bad path" },
      ],
      server,
    },
  ],
  ["a write reply with a null sha256", WriteResponse, { path: "x.md", version: 1, deleted: true, sha256: null, cursor: 1, server }],
  ["an error body without details", ErrorBody, { code: "not_found", message: "no such namespace" }],
  ["an error body with details and findings", ErrorBody, { code: "batch_too_large", message: "too many", details: { limit: 500, value: 501 }, findings: [] }],
  [
    "a change feed page",
    ChangesResponse,
    {
      changes: [
        { path: "a.md", version: 2, deleted: false, sha256: sha, size: 5, content: "hello", cursor: 4, author: "ann", createdAt: "2026-12-01T07:00:00.000Z", renamedFrom: "z.md" },
        { path: "b.md", version: 3, deleted: true, sha256: null, size: 0, content: null, cursor: 5, author: "bob", createdAt: "2026-12-01T07:00:01.000Z" },
      ],
      nextCursor: 5,
      hasMore: false,
      server,
    },
  ],
];

describe("reply serializer", () => {
  // The same JSON value; key order may differ (an optional key can come last), which JSON does not give meaning to.
  it.each(CASES)("writes %s as the same JSON value as zod's serializer did", (_name, schema, value) => {
    const route = { schema, method: "GET", url: "/x", httpStatus: "200" };
    const fast = createReplySerializerCompiler()(route)(value);
    const zod = createSerializerCompiler()(route)(value);
    expect(JSON.parse(fast)).toEqual(JSON.parse(zod));
    expect(JSON.parse(fast)).toEqual(value);
  });

  it("leaves out keys the schema does not name, as zod did", () => {
    const route = { schema: ErrorBody, method: "GET", url: "/x", httpStatus: "404" };
    const out = createReplySerializerCompiler()(route)({ code: "not_found", message: "gone", stack: "at db.ts:1", password: "x" });
    expect(JSON.parse(out)).toEqual({ code: "not_found", message: "gone" });
  });

  it("coerces a present value of the wrong type instead of refusing it, unlike zod (as its module comment says)", () => {
    const route = { schema: WriteResponse, method: "GET", url: "/x", httpStatus: "200" };
    const value = { path: null, version: null, deleted: false, sha256: null, cursor: "7", server };
    expect(JSON.parse(createReplySerializerCompiler()(route)(value))).toEqual({ path: "", version: 0, deleted: false, sha256: null, cursor: 7, server });
    expect(() => createSerializerCompiler()(route)(value)).toThrow();
  });

  it("picks a batch result's union member without re-checking refinements (no pattern checked per reply)", () => {
    // An opId outside OpId's pattern and a version past its bound: zod would refuse it; the serializer
    // picks the member by status and writes it (refinements are not re-checked on the way out).
    const route = { schema: BatchResponse, method: "POST", url: "/x", httpStatus: "200" };
    const value = { results: [{ opId: "x", path: "a.md", status: "applied", version: 2 ** 31, sha256: "not-a-hash", deleted: false, cursor: 1 }], server };
    expect(JSON.parse(createReplySerializerCompiler()(route)(value))).toEqual(value);
    expect(() => createSerializerCompiler()(route)(value)).toThrow();
  });

  it("drops refinements only where members stay told apart, and keeps property names and formats", () => {
    const json = JSON.stringify(withoutRefinements(replyJsonSchema(BatchResponse)));
    expect(json).not.toMatch(/"(pattern|minLength|maxLength|minimum|maximum)":/);
    expect(json).toContain('"const":"applied"');
    const named = { type: "object", properties: { pattern: { type: "string", pattern: "^a$" }, at: { type: "string", format: "date-time" } } };
    expect(withoutRefinements(named)).toEqual({ type: "object", properties: { pattern: { type: "string" }, at: { type: "string", format: "date-time" } } });
    // Members told apart by their patterns alone keep them.
    const byPattern = { anyOf: [{ type: "object", properties: { k: { type: "string", pattern: "^a" } }, required: ["k"] }, { type: "object", properties: { k: { type: "string", pattern: "^b" }, x: { type: "number" } }, required: ["k", "x"] }] };
    expect(withoutRefinements(byPattern)).toEqual(byPattern);
  });

  it("answers a reply missing a required property with 500 internal_error", async () => {
    const app = Fastify().withTypeProvider();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(createReplySerializerCompiler());
    await app.register(errors, { maxBodyBytes: 1024 });
    app.get("/broken", { schema: { response: { 200: WriteResponse } } }, async () => ({ path: "x.md", version: 1 }) as never);
    const res = await app.inject({ url: "/broken" });
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 500, body: { code: "internal_error", message: expect.any(String) } });
    await app.close();
  });
});
