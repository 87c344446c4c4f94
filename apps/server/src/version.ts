/** This server's version: its package.json's, which sits one folder above both src/ and dist/. */
import { readFileSync } from "node:fs";

export const SERVER_VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
