/**
 * Data for the admin console's browser test and its screenshots, made through the real HTTP API
 * of a running server: a namespace with an entry of two versions, an upload the server refused
 * because it held a planted credential (an `upload_rejected` audit event with rule, path and line),
 * and a pending bypass request for that credential's fingerprint. The credential is built at run
 * time (fakeGithubPat) and only ever sent in the refused upload: never stored, never answered.
 */
import { scan } from "@teammem/scanner";
import { fakeGithubPat } from "@teammem/scanner/testing";

export interface ConsoleSeed {
  /** The planted credential (no console page or response may hold it). */
  secret: string;
  namespace: string;
  /** The path of the refused upload and of the bypass request; the credential is on line 2. */
  blockedPath: string;
  /** An entry with two versions: `notesV1` then `notesV2`. */
  notesPath: string;
  notesV1: string;
  notesV2: string;
  bypassId: string;
}

async function call(url: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** The refused file's content: the credential on line 2, column 7. */
const plantedFile = (secret: string) => `Deploy notes\ntoken=${secret}\n`;

function expectStatus(step: string, got: { status: number; json: unknown }, want: number): unknown {
  if (got.status !== want) throw new Error(`seeding the console: ${step} answered ${got.status} ${JSON.stringify(got.json)}`);
  return got.json;
}

/** Seeds the console's data as `memberToken`'s user (a member of the team). @throws when a step is answered unexpectedly. */
export async function seedConsole(url: string, memberToken: string): Promise<ConsoleSeed> {
  const namespace = "acme/web";
  const ns = `/v1/namespaces/${encodeURIComponent(namespace)}`;
  expectStatus("create namespace", await call(url, memberToken, "PUT", ns), 201);

  const notesPath = "notes/build.md";
  const notesV1 = "# Build\n\nRun npm ci first.\nThen npm run build.\nTests: npm test.\n";
  const notesV2 = "# Build\n\nRun npm ci first.\nThen npx tsc -b (faster than npm run build).\nTests: npm test.\nLint: npm run lint.\n";
  const entry = `${ns}/entry?path=${encodeURIComponent(notesPath)}`;
  expectStatus("write v1", await call(url, memberToken, "PUT", entry, { baseVersion: 0, content: notesV1 }), 200);
  expectStatus("write v2", await call(url, memberToken, "PUT", entry, { baseVersion: 1, content: notesV2 }), 200);
  const other = `${ns}/entry?path=${encodeURIComponent("team/conventions.md")}`;
  expectStatus("write conventions", await call(url, memberToken, "PUT", other, { baseVersion: 0, content: "Use kebab-case file names.\n" }), 200);

  const secret = fakeGithubPat(4242);
  // The entry path of the member's team/keys.md, as the upload and the bypass request name it (a
  // client older than this one sent the request's path as team/keys.md; the server drops the lead).
  const blockedPath = "keys.md";
  const blockedContent = plantedFile(secret);
  const batch = expectStatus(
    "refused upload",
    await call(url, memberToken, "POST", `${ns}/batch`, { operations: [{ opId: "console-seed-keys", path: blockedPath, baseVersion: 0, content: blockedContent }] }),
    200,
  ) as { results: { status: string; code?: string }[] };
  if (batch.results[0]?.code !== "secret_detected") throw new Error(`seeding the console: the planted credential was not refused: ${JSON.stringify(batch.results)}`);

  const seed = { secret, namespace, blockedPath, notesPath, notesV1, notesV2 };
  return { ...seed, bypassId: await requestBypass(url, memberToken, seed, secret, "a revoked sandbox token kept for the deploy example") };
}

/**
 * Asks, as `memberToken`'s user, for a bypass of `secret` planted in the seed's refused file (a
 * pending request an admin decides on the console's bypasses page; one per fingerprint: a second
 * request for the same secret is answered with the first). @returns the request's id.
 * @throws when the server answers other than 201.
 */
export async function requestBypass(url: string, memberToken: string, seed: Pick<ConsoleSeed, "namespace" | "blockedPath">, secret: string, reasonText: string): Promise<string> {
  const blockedContent = plantedFile(secret);
  const policy = expectStatus("scan policy", await call(url, memberToken, "GET", "/v1/team/scan-policy"), 200) as { fingerprintKey: { id: number; key: string } };
  const [finding] = scan(blockedContent, { fingerprintKey: policy.fingerprintKey.key });
  if (!finding?.fingerprint) throw new Error("seeding the console: the scanner found no credential in the planted file");
  const bypass = expectStatus(
    "bypass request",
    await call(url, memberToken, "POST", "/v1/team/bypasses", {
      namespace: seed.namespace,
      path: seed.blockedPath,
      ruleId: finding.ruleId,
      line: finding.line,
      column: finding.column,
      fingerprint: finding.fingerprint,
      fingerprintKeyId: policy.fingerprintKey.id,
      reason: "test_value",
      reasonText,
    }),
    201,
  ) as { bypass: { id: string } };
  return bypass.bypass.id;
}
