import { randomChars, ALPHABETS } from "../fakes.js";
import type { Rule } from "../rule.js";
import { isPlausibleSecret } from "../rule-helpers/placeholder.js";

/**
 * SonarQube / SonarCloud token with a type prefix: `squ_` (user), `sqp_` (project analysis),
 * `sqa_` (global analysis) + 40 lowercase hex. Unprefixed legacy 40-hex tokens need a keyword and
 * are out of scope here.
 * Format: SonarQube docs, "Managing your tokens" (https://docs.sonarsource.com/sonarqube-server/latest/user-guide/managing-tokens/);
 * gitleaks rule `sonar-api-token` (keyword-based there).
 */
const token = (prefix: string, seed: number): string => prefix + randomChars(40, seed, ALPHABETS.hex);

const rule: Rule = {
  id: "sonar-api-token",
  label: "SonarQube token",
  prefixes: ["squ_", "sqp_", "sqa_"],
  pattern: /sq[upa]_[a-f0-9]{40}/y,
  validate: (value) => isPlausibleSecret(value.slice(4)),
  examples: () => ({
    positive: [`SONAR_TOKEN=${token("squ_", 1)}`, `sonar.login=${token("sqp_", 2)}`, `"${token("sqa_", 3)}"`],
    negative: [
      `squ_${"0".repeat(40)}`, // placeholder: one repeated character
      token("squ_", 4).slice(0, -1), // truncated: 39 characters
      `xsqp_${randomChars(40, 5, ALPHABETS.hex)}`, // prefix glued to the end of a longer word
    ],
  }),
};
export default rule;
