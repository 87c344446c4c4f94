/**
 * The message of a 400 `invalid_request` from schema validation, naming each failing field:
 * "invalid request: body/baseVersion: Invalid input: expected number, received string".
 * A union body (e.g. `{baseVersion, content} | {baseVersion, delete: true}`) fails as one issue at
 * the body's root ("Invalid input"); it is flattened here into the issues of the branch that came
 * closest (fewest issues); branches that come equally close are told apart with "or".
 */

/** One validation issue as fastify-type-provider-zod reports it (`params` holds the rest of the zod issue). */
export interface ValidationIssue {
  instancePath: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** A zod issue inside an `invalid_union` issue's `errors` (path relative to the union). */
interface ZodIssueLike {
  code?: string;
  path?: PropertyKey[];
  message?: string;
  errors?: unknown;
}

const MAX_PARTS = 5;

function joinPath(base: string, rel: readonly PropertyKey[] | undefined): string {
  const tail = (rel ?? []).map(String).join("/");
  return tail ? `${base.replace(/\/$/, "")}/${tail}` : base;
}

/** Flattened `"path: message"` lines of one issue at `path`, unions resolved to the closest branch. */
function flatten(path: string, message: string | undefined, code: string | undefined, errors: unknown): string[] {
  if (code === "invalid_union" && Array.isArray(errors) && errors.length > 0 && errors.every(Array.isArray)) {
    const branches = (errors as ZodIssueLike[][]).map((branch) => branch.flatMap((i) => flatten(joinPath(path, i.path), i.message, i.code, i.errors)));
    const usable = branches.filter((b) => b.length > 0);
    if (usable.length > 0) {
      const fewest = Math.min(...usable.map((b) => b.length));
      const closest = usable.filter((b) => b.length === fewest);
      const common = closest[0]!.filter((line) => closest.every((b) => b.includes(line)));
      const rest = [...new Set(closest.map((b) => b.filter((line) => !common.includes(line)).join("; ")).filter((s) => s.length > 0))];
      return rest.length > 0 ? [...common, rest.join(" or ")] : common;
    }
  }
  return [`${path}: ${message ?? "invalid"}`];
}

/** "invalid request: body/user: expected string; querystring/limit: too big" (at most 5 parts, then "and N more"). */
export function describeValidation(context: string | undefined, issues: readonly ValidationIssue[]): string {
  const where = context ?? "request";
  const lines = issues.flatMap((i) => flatten(`${where}${i.instancePath || ""}`, i.message, i.keyword, i.params?.errors));
  const parts = lines.slice(0, MAX_PARTS);
  if (lines.length > MAX_PARTS) parts.push(`and ${lines.length - MAX_PARTS} more`);
  return `invalid request: ${parts.join("; ")}`;
}
