/**
 * Issue 10, "Formats": an AWS secret access key within a few lines of its AKIA/ASIA key ID is
 * reported with the full catalog as a pair: the ID (`aws-access-token`) and the secret key
 * (`aws-secret-access-key`), each at its own position.
 */
import { describe, expect, it } from "vitest";
import { randomChars } from "../fakes.js";
import { scan } from "../scan.js";

const id = randomChars(16, 41, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
const secret = randomChars(40, 42, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");

describe("AWS key pair", () => {
  it("reports the key ID and the secret key of ~/.aws/credentials, each where it is", () => {
    const text = `# work account\n[work]\naws_access_key_id = AKIA${id}\naws_secret_access_key = ${secret}\nregion = eu-west-1\n`;
    expect(scan(text).map((f) => [f.ruleId, f.line, f.column])).toEqual([
      ["aws-access-token", 3, 21],
      ["aws-secret-access-key", 4, 25],
    ]);
  });

  it("reports the pair in a note that mentions them in prose on neighbouring lines", () => {
    const text = `The CI user has key ASIA${id}.\nIts secret is ${secret}, rotate it monthly.\n`;
    expect(scan(text).map((f) => f.ruleId)).toEqual(["aws-access-token", "aws-secret-access-key"]);
  });

  it("reports the secret key written before its key ID (env files, Terraform, docker -e), at the secret's position", () => {
    const text = `provider "aws" {\n  secret_key = "${secret}"\n  access_key = "AKIA${id}"\n}\n`;
    expect(scan(text).map((f) => [f.ruleId, f.line, f.column])).toEqual([
      ["aws-secret-access-key", 2, 17],
      ["aws-access-token", 3, 17],
    ]);
  });

  it("does not report a 40-character run with neither its key ID nor its name nearby", () => {
    expect(scan(`The build cache key is ${secret}\n`)).toEqual([]);
  });

  it("reports a secret key assigned to its name without the key ID (try15 F3), once where the ID is near too", () => {
    expect(scan(`aws_secret_access_key = ${secret}\n`).map((f) => [f.ruleId, f.line, f.column])).toEqual([
      ["aws-secret-access-key-assignment", 1, 25],
    ]);
    expect(scan(`AWS_SECRET_ACCESS_KEY=${secret}\nAWS_ACCESS_KEY_ID=AKIA${id}\n`).map((f) => f.ruleId)).toEqual([
      "aws-secret-access-key",
      "aws-access-token",
    ]);
  });

  it.each([
    ["the AWS CLI's configure set", `aws configure set aws_secret_access_key ${secret} --profile ci\n`, 1],
    ["a Markdown table row", `| Variable | Value |\n|---|---|\n| AWS_SECRET_ACCESS_KEY | ${secret} |\n`, 3],
    ["a Kubernetes env entry", `env:\n  - name: AWS_SECRET_ACCESS_KEY\n    value: "${secret}"\n`, 3],
    ["a Kubernetes env entry quoted in a note", `> env:\n>   - name: AWS_SECRET_ACCESS_KEY\n>     value: ${secret}\n`, 3],
    ["GitHub Actions' kebab-case input", `with:\n  aws-secret-access-key: ${secret}\n`, 2],
    ["STS XML", `<Credentials>\n  <SecretAccessKey>${secret}</SecretAccessKey>\n</Credentials>\n`, 2],
    ["prose as the console's CSV header names it", `AWS Secret Access Key: ${secret}\n`, 1],
    ["Go's :=", `secretAccessKey := "${secret}"\n`, 1],
    ["YAML with the value on the next line", `aws_secret_access_key:\n  ${secret}\n`, 2],
    ["YAML next line inside a JSON string", JSON.stringify({ note: `aws_secret_access_key:\n  ${secret}` }), 1],
  ])("reports the secret key under its name in %s (try16 F3)", (_layout, text, line) => {
    expect(scan(text).map((f) => [f.ruleId, f.line])).toEqual([["aws-secret-access-key-assignment", line]]);
  });

  it.each([
    ["Terraform's secret_key alone (a name any service uses)", `secret_key = "${secret}"\n`],
    ["the name in prose, the value far away", `Rotate the secret access key monthly.\n\n\nThe cache id: ${secret}\n`],
    ["a Kubernetes env entry read from a Secret", `- name: AWS_SECRET_ACCESS_KEY\n  valueFrom:\n    secretKeyRef: { name: aws, key: ${secret} }\n`],
  ])("does not report %s", (_layout, text) => {
    expect(scan(text).filter((f) => f.ruleId.startsWith("aws-secret"))).toEqual([]);
  });
});
