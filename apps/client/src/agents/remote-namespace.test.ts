import { describe, expect, it } from "vitest";
import { fakeGithubPat } from "@teammem/scanner/testing";
import { displayRemoteUrl, namespaceFromRemote } from "./remote-namespace.js";

describe("namespaceFromRemote", () => {
  it.each([
    ["git@github.com:acme/web.git", "acme/web"],
    ["git@github.com:acme/web", "acme/web"],
    ["github.com:acme/web.git", "acme/web"],
    ["git@github.com:acme/web.git/", "acme/web"],
    ["ssh://git@github.com/acme/web.git", "acme/web"],
    ["ssh://git@git.example.com:2222/acme/web.git", "acme/web"],
    ["git+ssh://git@git.example.com/acme/web.git", "acme/web"],
    ["ssh+git://git.example.com/acme/web", "acme/web"],
    ["git://git.example.org/acme/web.git", "acme/web"],
    ["https://github.com/acme/web", "acme/web"],
    ["https://github.com/acme/web.git", "acme/web"],
    ["https://github.com/acme/web/", "acme/web"],
    ["https://github.com/acme/web.git/", "acme/web"],
    ["HTTPS://GitHub.com/Acme/Web.GIT", "acme/web"],
    ["http://10.0.0.5:3000/acme/web", "acme/web"],
    ["https://gitlab.com/group/subgroup/repo.git", "group/subgroup/repo"],
    ["git@gitlab.example.com:group/subgroup/deeper/repo.git", "group/subgroup/deeper/repo"],
    ["https://gitlab.example.com/group/subgroup/repo/", "group/subgroup/repo"],
    ["https://dev.azure.com/org/project/_git/repo", "org/project/repo"],
    ["git@ssh.dev.azure.com:v3/org/project/repo", "org/project/repo"],
    ["ssh://git.example.com/~ann/notes.git", "ann/notes"],
    ["git@[::1]:acme/web.git", "acme/web"],
    ["https://bitbucket.org/acme/web.git", "acme/web"],
    ["  git@github.com:acme/web.git\n", "acme/web"],
  ])("names %j %j", (url, namespace) => {
    expect(namespaceFromRemote(url)).toEqual({ ok: true, namespace });
  });

  it("ignores a user name and password in the URL", () => {
    const token = fakeGithubPat();
    expect(namespaceFromRemote(`https://x-access-token:${token}@github.com/acme/web.git`)).toEqual({ ok: true, namespace: "acme/web" });
  });

  it.each([
    ["/srv/git/web.git", "local path"],
    ["../web", "local path"],
    ["C:/src/web", "local path"],
    ["file:///srv/git/web.git", "file://"],
    ["https://github.com/", "no repository path"],
    ["https://host/acme/..", "no repository path"],
    ["https://host/acme/.hidden", "does not make a namespace"],
    ["https://host/a%20b/repo", "does not make a namespace"],
    ["https://host/a%ZZ/repo", "not valid percent-encoding"],
    [`https://host/${"x".repeat(300)}`, "does not make a namespace"],
  ])("refuses %j (%s)", (url, reason) => {
    const result = namespaceFromRemote(url);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toContain(reason);
      expect(result.reason).not.toContain(url);
    }
  });
});

describe("displayRemoteUrl", () => {
  it("drops the user name and password of a URL and redacts a credential anywhere", () => {
    const token = fakeGithubPat();
    expect(displayRemoteUrl(`https://ann:${token}@github.com/acme/web.git`)).toBe("https://github.com/acme/web.git");
    expect(displayRemoteUrl(`https://${token}@github.com/acme/web.git`)).toBe("https://github.com/acme/web.git");
    const scp = displayRemoteUrl(`git@github.com:acme/${token}.git`);
    expect(scp).not.toContain(token);
    expect(scp).toContain("[REDACTED:github-pat]");
  });

  it("keeps an scp-like URL as it is", () => {
    expect(displayRemoteUrl("git@github.com:acme/web.git")).toBe("git@github.com:acme/web.git");
  });
});
