import { randomChars } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlaceholderPassword } from "../rule-helpers/password-placeholder.js";
import { shannonEntropy } from "../rule-helpers/placeholder.js";

/**
 * Clear-text package source password in a NuGet.Config `<packageSourceCredentials>` entry:
 * `<add key="ClearTextPassword" value="…" />` (or `key="Password"`, the encrypted form, which NuGet
 * can only decrypt on the same machine but is still a credential). Values that are environment
 * variable references (`%NUGET_PASSWORD%`, `$(…)`, `${…}`), placeholders or shorter than 8 characters
 * are not reported. A password is chosen by a person: only a value that IS a stand-in as a whole
 * (`YOUR_PASSWORD`, `XXXXXXXX`, `<password>`: rule-helpers/password-placeholder.ts) is skipped, not
 * one that merely contains such a word (`Example#Feed2024`), nor a common word with enough letters. Format: Microsoft Learn, "nuget.config reference", packageSourceCredentials
 * (https://learn.microsoft.com/en-us/nuget/reference/nuget-config-file#packagesourcecredentials);
 * gitleaks rule `nuget-config-password`.
 */
const entry = (key: string, value: string): string => `<add key="${key}" value="${value}" />`;

/** `%VAR%`, `$VAR`, `$(VAR)`, `${VAR}`, `{{var}}`: the value comes from elsewhere. */
const REFERENCE = /^(?:%[^%]{1,200}%|\$[({]?[A-Za-z_][A-Za-z0-9_.]{0,200}[)}]?|\{\{[^}]{1,200}\}\})$/;

const rule: Rule = {
  id: "nuget-config-password",
  label: "NuGet.Config package source password",
  prefixes: ['<add key="ClearTextPassword"', '<add key="Password"'],
  pattern: /<add key="(?:ClearText)?Password"[ \t]{1,8}value="(?<secret>[^"\r\n]{8,256})"[ \t]{0,8}\/>/y,
  validate: (value) =>
    !REFERENCE.test(value) && !isPlaceholderPassword(value) && shannonEntropy(value) >= 2.5 && !/^[<[].*[>\]]$/.test(value),
  examples: () => ({
    positive: [entry("ClearTextPassword", randomChars(16, 1)), entry("Password", randomChars(40, 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")),
      entry("ClearTextPassword", `${"Exam" + "ple"}#Feed${randomChars(4, 4, "0123456789")}`), // merely contains a stand-in word (pieces)
    ],
    negative: [
      entry("ClearTextPassword", "XXXXXXXXXXX"), // placeholder
      entry("ClearTextPassword", "abc"), // too short
      entry("ClearTextPassword", "%NUGET_FEED_PASSWORD%"), // environment variable reference
      entry("ClearTextPassword", "<your-password>"), // placeholder in angle brackets
      entry("Username", randomChars(16, 3)), // not the password entry
      entry("ClearTextPassword", "YOUR_PASSWORD_HERE"), // a stand-in as a whole
    ],
  }),
};
export default rule;
