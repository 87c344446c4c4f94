/**
 * The one-line reason a `teammem-server` command failed, for people: the underlying cause of a
 * wrapped database error (drizzle's "Failed query: ..." hides pg's "database x does not exist" or
 * ECONNREFUSED in `cause`), a recovery hint for common failures, and never a password (any
 * `scheme://user:password@` in the text is masked).
 */

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNRESET", "EHOSTUNREACH"]);

/** `postgres://user:secret@host` → `postgres://user:***@host` everywhere in `text`. */
export function maskUrlPasswords(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]*@/gi, "$1***@");
}

interface ErrorLike {
  message?: string;
  code?: string;
  cause?: unknown;
  errors?: unknown[];
}

/** Messages of `err` and its causes (and an AggregateError's errors), outermost first. */
function causeChain(err: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  for (let e: unknown = err; e && typeof e === "object" && chain.length < 10; e = (e as ErrorLike).cause) {
    chain.push(e as ErrorLike);
    const inner = (e as ErrorLike).errors;
    if (Array.isArray(inner) && !(e as ErrorLike).message) chain.push(...inner.filter((x): x is ErrorLike => !!x && typeof x === "object"));
  }
  return chain;
}

/**
 * A human description of `err` (no "teammem-server:" prefix).
 * - listen EADDRINUSE → "the address is already in use (...); stop the process using it or choose another port with --port <port> (--port 0: any free port)"
 * - a failed database query → its cause's message, then the statement's first line (never its params)
 * - a connection failure → the cause plus "is PostgreSQL running, and is DATABASE_URL right?"
 */
export function describeFailure(err: unknown): string {
  const chain = causeChain(err);
  const top = chain[0];
  if (!top) return maskUrlPasswords(String(err));
  // The wait for the database at start (db/wait-for-database.ts) already wrote the whole explanation.
  if (top.code === "TEAMMEM_DB_UNREACHABLE") return maskUrlPasswords(top.message ?? "cannot reach the database");
  // A listen address that cannot be used (http/listen-address.ts) names host:port and the fix.
  if (top.code === "TEAMMEM_LISTEN_FAILED") return top.message ?? "cannot listen";
  if (top.code === "EADDRINUSE") {
    return maskUrlPasswords(
      `the address is already in use (${top.message ?? "EADDRINUSE"}); stop the process using it or choose another port with --port <port> (--port 0: any free port)`,
    );
  }
  const messages = chain.map((e) => e.message).filter((m): m is string => typeof m === "string" && m.length > 0);
  const failedQuery = /^Failed query: ([^\n]*)/.exec(top.message ?? "");
  const reasons = failedQuery ? messages.slice(1) : messages;
  let text = reasons.length > 0 ? [...new Set(reasons)].join(": ") : (top.message ?? String(err));
  if (chain.some((e) => e.code !== undefined && CONNECTION_CODES.has(e.code))) {
    text = `cannot reach the database: ${text}; is PostgreSQL running, and is DATABASE_URL right?`;
  } else if (failedQuery) {
    text = `database error: ${text} (while running: ${failedQuery[1]!.slice(0, 200)})`;
  }
  return maskUrlPasswords(text);
}
