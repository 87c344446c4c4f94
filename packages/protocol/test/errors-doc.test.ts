import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { codeForStatus, ERRORS, type ErrorSpec } from "../src/errors.js";

const doc = () => readFile(new URL("../ERRORS.md", import.meta.url), "utf8");

/** The registry line ERRORS.md starts each code's section with. */
function registryLine({ http, close, retry, retryAfter }: ErrorSpec): string {
  const advice = retryAfter ? "after Retry-After" : retry ? "yes" : "no";
  return `${http === null ? "stream only" : `HTTP ${http}`}, close ${close}, retry: ${advice}.`;
}

/** Rows of the "WebSocket close codes" table: close code → the codes listed in its last column. */
function closeTable(text: string): Record<string, string[]> {
  const section = text.split("## WebSocket close codes\n")[1]?.split("\n## ")[0] ?? "";
  const rows = [...section.matchAll(/^\| (\d{4}) \|.*\| ([^|]+) \|$/gm)];
  return Object.fromEntries(rows.map((m) => [m[1]!, [...m[2]!.matchAll(/`([a-z0-9_]+)`/g)].map((c) => c[1]!).sort()]));
}

describe("ERRORS.md", () => {
  it("documents every error code of the registry and documents nothing else", async () => {
    const documented = [...(await doc()).matchAll(/^### ([a-z0-9_]+)$/gm)].map((m) => m[1]);
    expect([...documented].sort()).toEqual(Object.keys(ERRORS).sort());
  });

  it("starts each code's section with its HTTP status, close code and retry advice as the registry states them", async () => {
    const text = await doc();
    for (const [code, spec] of Object.entries(ERRORS)) {
      const section = text.split(`### ${code}\n`)[1]?.split("\n### ")[0] ?? "";
      expect(section.replace(/\s+/g, " "), code).toMatch(new RegExp(`^${registryLine(spec).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    }
  });

  it("lists in its close-code table exactly the registry's close codes, each with the codes that use it", async () => {
    const expected: Record<string, string[]> = {};
    for (const [code, { close }] of Object.entries(ERRORS)) (expected[String(close)] ??= []).push(code);
    for (const codes of Object.values(expected)) codes.sort();
    expect(closeTable(await doc())).toEqual(expected);
  });
});

describe("error registry", () => {
  it("uses close codes a WebSocket application may send: 1001, 1007-1014, or 4000-4999", () => {
    for (const [code, { close }] of Object.entries(ERRORS)) {
      expect([1001, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014].includes(close) || (close >= 4000 && close <= 4999), code).toBe(true);
    }
  });

  it("echoes the HTTP status in every 4xxx close code above 4099 and keeps 4001-4099 for one code each", () => {
    const byClose = new Map<number, string[]>();
    for (const [code, { http, close }] of Object.entries(ERRORS)) {
      if (close >= 4100) expect(close, code).toBe(4000 + http!);
      byClose.set(close, [...(byClose.get(close) ?? []), code]);
    }
    for (const [close, codes] of byClose) if (close < 4100 && close >= 4000) expect(codes, String(close)).toHaveLength(1);
  });

  it("reads an error reply without a teammem body as the generic code of its status", () => {
    expect([400, 401, 403, 404, 413, 429, 500, 502, 503, 504, 405].map(codeForStatus)).toEqual([
      "invalid_request",
      "unauthorized",
      "forbidden",
      "not_found",
      "body_too_large",
      "rate_limited",
      "internal_error",
      "internal_error",
      "database_busy",
      "internal_error",
      "method_not_allowed",
    ]);
  });
});
