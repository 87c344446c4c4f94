/**
 * The default namespace of a repository: the repository's path on its forge, read from a git
 * remote URL, on any host. The URL forms are git's own (git-clone(1) "GIT URLS"):
 *
 * - scp-like: `[user@]host:owner/repo.git` (no `://`, a `:` before the first `/`)
 * - URLs: `ssh://[user@]host[:port]/owner/repo.git`, `git://host/...`, `http(s)://[user[:password]@]host[:port]/...`,
 *   also `git+ssh://` and `ssh+git://`
 *
 * The path loses a trailing `/`, then a trailing `.git`, then leading/trailing `/`; a leading `~`
 * (`ssh://host/~user/repo`) is dropped; Azure DevOps' `_git` segment and SSH `v3/` prefix are dropped
 * (`dev.azure.com/org/project/_git/repo` → `org/project/repo`). The result is lower-cased, because
 * GitHub, GitLab and Bitbucket resolve paths case-insensitively, so teammates whose remotes differ
 * only in case still share one namespace. The host is not part of the name.
 *
 * The user name and password of a URL are never used nor shown ({@link displayRemoteUrl}).
 */
import { checkNamespaceName, NAMESPACE_RULE } from "@teammem/protocol";
import { redact } from "@teammem/scanner";

export type RemoteNamespace = { ok: true; namespace: string } | { ok: false; reason: string };

const URL_SCHEMES = new Set(["ssh:", "git:", "http:", "https:", "git+ssh:", "ssh+git:"]);

/** The path part of a remote URL, or a reason it has none teammem can use. */
function remotePath(url: string): { path: string; host: string } | { reason: string } {
  const trimmed = url.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (!URL_SCHEMES.has(`${scheme}:`)) return { reason: `a ${scheme}:// remote names no forge repository` };
    let parsed: URL;
    try {
      parsed = new URL(trimmed);
    } catch {
      return { reason: "the remote URL is not a valid URL" };
    }
    let path: string;
    try {
      path = decodeURIComponent(parsed.pathname);
    } catch {
      return { reason: "the remote URL's path is not valid percent-encoding" };
    }
    return { path, host: parsed.hostname };
  }
  // scp-like syntax: a colon before any slash, and not a Windows drive letter.
  const scp = /^(?:[^@/]+@)?(\[[^\]]+\]|[^:/]+):(.*)$/.exec(trimmed);
  if (scp && !/^[A-Za-z]$/.test(scp[1]!)) return { path: scp[2]!, host: scp[1]! };
  return { reason: "the remote is a local path, which names no forge repository" };
}

/**
 * The namespace a remote URL names: its repository path, lower-cased (see the module comment).
 * @returns `{ ok: true, namespace }`, or `{ ok: false, reason }` when the URL has no usable path or
 *   the path breaks the namespace rule (the reason never echoes the URL).
 */
export function namespaceFromRemote(url: string): RemoteNamespace {
  const found = remotePath(url);
  if ("reason" in found) return { ok: false, reason: found.reason };
  let segments = found.path
    .replace(/\/+$/, "")
    .replace(/\.git$/i, "")
    .split("/")
    .filter((s) => s !== "");
  if (segments[0]?.startsWith("~")) segments[0] = segments[0].slice(1);
  if (/(^|\.)(dev\.azure\.com|visualstudio\.com)$/i.test(found.host)) {
    if (segments[0] === "v3") segments = segments.slice(1);
    segments = segments.filter((s) => s !== "_git");
  }
  if (segments.length === 0) return { ok: false, reason: "the remote URL has no repository path" };
  const namespace = segments.join("/").toLowerCase();
  const check = checkNamespaceName(namespace);
  if (!check.ok) return { ok: false, reason: `its path does not make a namespace (${check.message}; a namespace is ${NAMESPACE_RULE})` };
  return { ok: true, namespace };
}

/**
 * A remote URL as it may be shown: user name and password removed (URL forms), any credential
 * left in it redacted by the scanner.
 */
export function displayRemoteUrl(url: string): string {
  let shown = url.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(shown)) {
    try {
      const parsed = new URL(shown);
      parsed.username = "";
      parsed.password = "";
      shown = parsed.toString();
    } catch {
      shown = shown.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1");
    }
  }
  return redact(shown);
}
