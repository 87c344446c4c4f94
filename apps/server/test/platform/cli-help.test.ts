/**
 * `teammem-server --help` and every command's and subcommand's help, byte for byte, against a
 * snapshot taken before run.ts loaded command modules lazily: the help text is part of the contract.
 */
import { describe, expect, it } from "vitest";
import { cli } from "./cli-harness.js";

const GROUPS: Record<string, readonly string[]> = {
  team: ["create", "list"],
  token: ["create", "revoke", "list"],
  member: ["list", "role"],
  audit: ["list", "show", "summary", "export"],
  bypass: ["list", "approve", "deny", "revoke"],
  epoch: ["show", "rotate"],
};

/** Every help screen: the program's, each command's, each subcommand's. */
const HELP_ARGVS: readonly string[][] = [
  ["--help"],
  ["help"],
  ...["start", "migrate", "team", "token", "member", "audit", "bypass", "purge", "epoch", "export", "import"].map((name) => [name, "--help"]),
  ...Object.entries(GROUPS).flatMap(([group, subs]) => subs.map((sub) => [group, sub, "--help"])),
];

describe("teammem-server --help", () => {
  it.each(HELP_ARGVS.map((argv) => [argv.join(" "), argv] as const))("`teammem-server %s` prints the same help as before", async (_name, argv) => {
    expect(await cli(argv)).toMatchSnapshot();
  });

  it("prints the version for --version", async () => {
    const r = await cli(["--version"]);
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
  });
});
