/**
 * Namespace names: the name of one repository's memory within a team, as people name the
 * repository on its forge: `acme-web`, `acme/web` (GitHub, Gitea, Bitbucket `owner/repo`),
 * `group/subgroup/repo` (GitLab subgroups). Shared by client, server, the WebSocket route and the
 * admin console, so every part accepts and refuses the same names.
 *
 * A name is 1 to {@link MAX_NAMESPACE_SEGMENTS} segments joined by `/`; each segment is 1 to
 * {@link MAX_NAMESPACE_SEGMENT_LENGTH} characters of `A-Z a-z 0-9 . _ -` starting with a letter or
 * digit (so no `.`/`..` segment, no hidden segment, nothing a shell or a URL treats specially);
 * the whole name is at most {@link MAX_NAMESPACE_LENGTH} characters. No leading, trailing or double
 * `/`, no space, control character, `%`, `\`, `:` or `@`. A name is kept as spelled, but a team
 * cannot hold two names with the same {@link namespaceFoldKey} (`Acme/Web`, `acme/web` and
 * `acme/web.git` are one namespace: the server refuses the second with `namespace_name_conflict`).
 * Every single-segment name valid before `/` was allowed still is.
 *
 * In a URL path the name is one segment, percent-encoded (`/v1/namespaces/acme%2Fweb/changes`,
 * `encodeURIComponent`); the server's router decodes `%2F` inside a parameter. A reverse proxy in
 * front of the server must pass `%2F` through undecoded (nginx: `proxy_pass` without a URI part;
 * Apache: `AllowEncodedSlashes NoDecode`).
 */

/** Most characters in a whole name (GitLab's full paths run long; 255 keeps a name one file-name long). */
export const MAX_NAMESPACE_LENGTH = 255;
/** Most characters in one segment (the limit of a whole name before segments existed). */
export const MAX_NAMESPACE_SEGMENT_LENGTH = 128;
/** Most segments (GitLab nests up to 20 subgroups: group + 20 subgroups + project = 22). */
export const MAX_NAMESPACE_SEGMENTS = 32;

const SEGMENT = `[A-Za-z0-9][A-Za-z0-9._-]{0,${MAX_NAMESPACE_SEGMENT_LENGTH - 1}}`;

/** The whole rule as one regular expression (also the `pattern` of the JSON schema in the API docs). */
export const NAMESPACE_PATTERN = new RegExp(
  `^(?=.{1,${MAX_NAMESPACE_LENGTH}}$)${SEGMENT}(?:/${SEGMENT}){0,${MAX_NAMESPACE_SEGMENTS - 1}}$`,
);

/** One sentence stating the rule, for error messages. */
export const NAMESPACE_RULE =
  `1-${MAX_NAMESPACE_SEGMENTS} segments joined by '/' (e.g. acme-web, acme/web, group/subgroup/repo), ` +
  `each 1-${MAX_NAMESPACE_SEGMENT_LENGTH} of A-Z a-z 0-9 . _ - starting with a letter or digit, ` +
  `at most ${MAX_NAMESPACE_LENGTH} characters in all`;

export type NamespaceRule =
  | "empty"
  | "too_long"
  | "control_character"
  | "leading_slash"
  | "trailing_slash"
  | "empty_segment"
  | "dot_segment"
  | "segment_start"
  | "invalid_character"
  | "segment_too_long"
  | "too_many_segments";

export type NamespaceCheck = { ok: true; name: string } | { ok: false; rule: NamespaceRule; message: string };

/**
 * Checks `raw` against the namespace rule; agrees with {@link NAMESPACE_PATTERN} on every input.
 * @returns `{ ok: true, name }` (the name unchanged), or `{ ok: false, rule, message }` naming the
 *   first rule that failed. The message never echoes the name (it may hold anything, a credential included).
 */
export function checkNamespaceName(raw: string): NamespaceCheck {
  const fail = (rule: NamespaceRule, message: string): NamespaceCheck => ({ ok: false, rule, message });
  if (raw.length === 0) return fail("empty", "namespace must not be empty");
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(raw)) return fail("control_character", "namespace must not contain control characters");
  if (raw.length > MAX_NAMESPACE_LENGTH) return fail("too_long", `namespace must be at most ${MAX_NAMESPACE_LENGTH} characters`);
  if (raw.startsWith("/")) return fail("leading_slash", "namespace must not start with '/' (write owner/repo, not /owner/repo)");
  if (raw.endsWith("/")) return fail("trailing_slash", "namespace must not end with '/'");
  const segments = raw.split("/");
  if (segments.length > MAX_NAMESPACE_SEGMENTS) return fail("too_many_segments", `namespace must have at most ${MAX_NAMESPACE_SEGMENTS} '/'-separated segments`);
  for (const segment of segments) {
    if (segment === "") return fail("empty_segment", "namespace must not contain '//'");
    if (segment === "." || segment === "..") return fail("dot_segment", "namespace must not contain '.' or '..' segments");
    if (/[^A-Za-z0-9._-]/.test(segment))
      return fail("invalid_character", "namespace segments may hold only A-Z a-z 0-9 . _ - (no space, '%', '\\', ':' or '@')");
    if (!/^[A-Za-z0-9]/.test(segment)) return fail("segment_start", "each namespace segment must start with a letter or digit");
    if (segment.length > MAX_NAMESPACE_SEGMENT_LENGTH)
      return fail("segment_too_long", `each namespace segment must be at most ${MAX_NAMESPACE_SEGMENT_LENGTH} characters`);
  }
  return { ok: true, name: raw };
}

/**
 * The key under which two namespace names of a team are the same namespace: lower case (names are
 * ASCII, so `toLowerCase` equals PostgreSQL's `lower`), then one trailing `.git` removed, the same
 * folding the client applies to a name derived from a repository's remote
 * (`git@github.com:Acme/Web.git` -> `acme/web`). A teammate typing `ACME/Web` or `acme/web.git`
 * thus meets the team's `acme/web` instead of an empty twin.
 * @returns the fold key of a valid name (`checkNamespaceName`); not itself checked for validity.
 */
export function namespaceFoldKey(name: string): string {
  return name.toLowerCase().replace(/\.git$/, "");
}
