import { Writable } from "node:stream";
import { ERROR_CODES, ERRORS, type ErrorCode } from "@teammem/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Refusal } from "../../src/errors/refusal.js";
import { bearer, startTestServer, type TestServer } from "./support.js";

describe("error contract", () => {
  let server: TestServer;
  let admin: string;
  const logLines: string[] = [];
  beforeAll(async () => {
    const stream = new Writable({ write: (chunk, _enc, done) => (logLines.push(String(chunk)), done()) });
    server = await startTestServer("pglite", { limits: { maxBodyBytes: 2048 }, logger: { level: "info", stream } });
    server.app.post("/test/boom", async () => {
      throw new Error("database exploded near row 42");
    });
    server.app.get<{ Params: { code: ErrorCode } }>("/test/refuse/:code", async (request) => {
      throw new Refusal(request.params.code, "refused for the test", { retryAfterMs: 1500 });
    });
    admin = (await server.token("errors-team", "root", "admin")).token;
  });
  afterAll(() => server?.close());

  const post = (payload: string | Buffer, headers: Record<string, string> = { "content-type": "application/json" }) =>
    server.app.inject({ method: "POST", url: "/v1/admin/tokens", headers: { ...bearer(admin), ...headers }, payload });

  it("answers a refusal with the HTTP status of its code in the registry, and Retry-After where the registry says so", async () => {
    const seen = [];
    for (const code of ERROR_CODES) {
      const res = await server.app.inject({ url: `/test/refuse/${code}` });
      const spec = ERRORS[code];
      seen.push({ code, status: res.statusCode, retryAfter: res.headers["retry-after"] ?? null, body: res.json().code });
      if (spec.http === null) continue; // stream-only: checked below
      expect(res.json(), code).toEqual({ code, message: "refused for the test", details: { retryAfterMs: 1500 } });
    }
    expect(seen).toEqual(
      ERROR_CODES.map((code) => {
        const spec = ERRORS[code];
        if (spec.http === null) return { code, status: 500, retryAfter: null, body: "internal_error" };
        return { code, status: spec.http, retryAfter: "retryAfter" in spec ? "2" : null, body: code };
      }),
    );
  });

  it("answers an unknown route with 404 not_found", async () => {
    const res = await server.app.inject({ url: "/v1/nothing-here?x=1" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: "not_found", message: "no route GET at this path" });
  });

  it("answers a body over the limit with 413 body_too_large naming the limit", async () => {
    const res = await post(JSON.stringify({ user: "x".repeat(4000), role: "member" }));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ code: "body_too_large", message: "the request body exceeds 2048 bytes", details: { limit: 2048 } });
  });

  it("answers malformed JSON with 400 invalid_request", async () => {
    const res = await post('{"user": "bob", ');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: "invalid_request", message: "the request body is not valid JSON" });
  });

  it("refuses JSON nested deeper than 32 levels before parsing it (try15 F9), and parses 32 levels", async () => {
    const deep = await post(`{"user": "bob", "role": "member", "x": ${"[".repeat(33)}${"]".repeat(33)}}`);
    expect(deep.statusCode).toBe(400);
    expect(deep.json()).toEqual({ code: "invalid_request", message: "the request body nests arrays or objects deeper than 32 levels" });
    // 32 levels in all (the body's object is one) and brackets inside strings do not count: the
    // schema answers (an unknown key), not the depth check.
    const ok = await post(`{"user": "[[[[{{{{\\"[[[[", "role": "member", "x": ${"[".repeat(31)}${"]".repeat(31)}}`);
    expect(ok.statusCode).toBe(400);
    expect(ok.json().message).not.toMatch(/deeper/);
  });

  it("answers invalid UTF-8 in a JSON body with 400 invalid_utf8", async () => {
    const res = await post(Buffer.concat([Buffer.from('{"user": "b'), Buffer.from([0xc3, 0x28]), Buffer.from('b", "role": "member"}')]));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: "invalid_utf8", message: "the request body is not valid UTF-8" });
  });

  it("answers a body that is not application/json with 415 unsupported_media_type", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const res = await post("user=bob&role=member", { "content-type": type });
      expect(res.statusCode, type).toBe(415);
      expect(res.json()).toEqual({ code: "unsupported_media_type", message: "request bodies must be sent as application/json" });
    }
  });

  it("answers a body without a content type, or in a charset other than UTF-8, with 415 unsupported_media_type", async () => {
    const noType = await server.app.inject({ method: "POST", url: "/v1/admin/tokens", headers: bearer(admin), payload: Buffer.from('{"user":"bob","role":"member"}') });
    expect(noType.statusCode).toBe(415);
    expect(noType.json().code).toBe("unsupported_media_type");
    const latin1 = await post('{"user":"bob","role":"member"}', { "content-type": "application/json; charset=latin1" });
    expect(latin1.statusCode).toBe(415);
    expect(latin1.json()).toEqual({ code: "unsupported_media_type", message: "request bodies must be sent as application/json in UTF-8" });
    const utf8 = await post('{"user":"bob","role":"member"}', { "content-type": "application/json; charset=UTF-8" });
    expect(utf8.statusCode).toBe(201);
  });

  it("answers a compressed body (Content-Encoding) with 415 unsupported_media_type naming the encoding, not invalid_utf8", async () => {
    const { gzipSync } = await import("node:zlib");
    const body = gzipSync(JSON.stringify({ user: "bob", role: "member" }));
    for (const [encoding, named] of [["gzip", "gzip"], ["BR", "br"], ["x\u00e9", "this one"]] as const) {
      const res = await post(body, { "content-type": "application/json", "content-encoding": encoding });
      expect(res.statusCode, encoding).toBe(415);
      expect(res.json()).toEqual({ code: "unsupported_media_type", message: `request bodies must be sent uncompressed; Content-Encoding ${named} is not accepted` });
    }
    const identity = await post(JSON.stringify({ user: "idbob", role: "member" }), { "content-type": "application/json", "content-encoding": "identity" });
    expect(identity.statusCode).toBe(201);
  });

  it("answers an over-long path parameter or a bad percent-encoding with 400 invalid_request, never quoting the URL", async () => {
    const marker = "zq".repeat(5000);
    for (const [method, route] of [["GET", "/v1/namespaces/:namespace/heads"], ["DELETE", "/v1/admin/tokens/:tokenId"]] as const) {
      const res = await server.app.inject({ method, url: route.replace(/:\w+/, marker), headers: bearer(admin) });
      expect(res.statusCode, route).toBe(400);
      expect(res.json()).toEqual({ code: "invalid_request", message: "a path parameter of the URL is longer than 765 characters", details: { limit: 765 } });
      expect(res.body).not.toContain("zqzq");
    }
    const bad = await server.app.inject({ url: "/v1/namespaces/%E0%A4%A/heads", headers: bearer(admin) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ code: "invalid_request", message: "the request URL is malformed" });
  });

  it("refuses a __proto__ key in a body with 400 invalid_request", async () => {
    const res = await post('{"user": "bob", "role": "member", "__proto__": {"admin": true}}');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: "invalid_request", message: "the body contains a forbidden key __proto__" });
  });

  it("answers a schema violation with 400 invalid_request naming each failing field", async () => {
    const res = await post(JSON.stringify({ user: 7, role: "boss" }));
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe("invalid_request");
    expect(body.message).toMatch(/^invalid request: body\/user: .+; body\/role: .+$/);
  });

  it("answers an unexpected failure with a bare 500 and keeps the details in the log only", async () => {
    const res = await server.app.inject({
      method: "POST",
      url: "/test/boom",
      headers: { ...bearer(admin), "content-type": "application/json" },
      payload: JSON.stringify({ content: "body-marker-5d1c" }),
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ code: "internal_error", message: "internal error" });
    const log = logLines.join("");
    expect(log).toContain("database exploded near row 42");
    expect(log).not.toContain("body-marker-5d1c");
    expect(log).not.toContain(admin);
  });

  it("never writes the Authorization header or a body to the log", async () => {
    await post(JSON.stringify({ user: "log-probe-user-91b2", role: "member" }));
    await server.app.inject({ url: "/v1/admin/members", headers: bearer(admin) });
    const log = logLines.join("");
    expect(log).toContain("/v1/admin/members");
    expect(log).not.toContain(admin.split(".")[2]!);
    expect(log).not.toContain("log-probe-user-91b2");
  });
});
