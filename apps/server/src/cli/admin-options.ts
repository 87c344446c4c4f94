/**
 * Options every admin command takes (where its data is, how to print) and the checks of their
 * values: `--server URL --token T` (or TEAMMEM_SERVER / TEAMMEM_ADMIN_TOKEN) for a running server's
 * admin API, else the database (`--data-dir` or DATABASE_URL) with `--team`; `--json` for JSON.
 */
import { InvalidArgumentError, Option, type Command } from "@commander-js/extra-typings";
import { FETCH_BAD_PORTS } from "@teammem/protocol";
import type { z } from "zod";
import { dataDirOption, parseName } from "./context.js";

/** Adds the shared admin options to `command`. */
export function withAdminOptions<C extends Command<[], Record<string, never>>>(command: C) {
  return command
    .addOption(new Option("--server <url>", "a running server's URL: act through its admin API (env TEAMMEM_SERVER)").argParser(parseUrl))
    .addOption(new Option("--token <token>", "an admin token of the team, with --server (env TEAMMEM_ADMIN_TOKEN)"))
    .addOption(new Option("--team <name>", "the team, on the database (through --server: the token's team)").argParser(parseName("team")))
    .addOption(dataDirOption())
    .option("--json", "print JSON (the admin API's shapes)");
}

function parseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError("give a URL such as http://127.0.0.1:8080");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new InvalidArgumentError("the URL must be http:// or https://");
  if (url.username || url.password) throw new InvalidArgumentError("no credentials in the URL: pass the token with --token");
  if (url.port !== "" && FETCH_BAD_PORTS.has(Number(url.port)))
    throw new InvalidArgumentError(`port ${url.port} is one fetch never connects to (a WHATWG "bad port"): no server can be reached there`);
  return value;
}

/** A zod-checked option value: `schema` parses it, its first issue is the error shown. */
export function parseWith<T>(schema: z.ZodType<T>, what: string) {
  return (value: string): T => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new InvalidArgumentError(`${what}: ${parsed.error.issues[0]?.message ?? "not accepted"}`);
    return parsed.data;
  };
}
