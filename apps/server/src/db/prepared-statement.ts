/**
 * The `pg` query config of one execution of a named statement, for the statements the write path
 * sends on every write (store/fast-forward.ts, store/change-notifier.ts).
 */
import type { SQL } from "drizzle-orm";
import type { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { rowsOf, type Tx } from "./database.js";

/**
 * `statement` (name, text, row mode: fixed per statement) with `values`, for `pool.query`. The
 * config inherits the statement's fields and owns only `values`: `pg` copies a config's own
 * properties, descriptor by descriptor, into every `Query` it builds (pg/lib/utils.js
 * `cloneQueryConfig`, which keeps the prototype), so a config spread from the statement
 * (`{ ...statement, values }`) cost ~4 µs per query, this one ~1.4 (`new Query(config)`, hot, Node 20).
 */
export function withValues<S extends { name: string; text: string }>(statement: S, values: unknown[]): S & { values: unknown[] } {
  const config = Object.create(statement) as S & { values: unknown[] };
  config.values = values;
  return config;
}

/**
 * The rows of `query` run in `tx`. On PostgreSQL (a transaction of store/namespace-transaction.ts:
 * drizzle over one `pg` connection) as the named statement `name`: PostgreSQL parses it once per
 * connection (and plans it once when its generic plan is as cheap as the custom ones) instead of on
 * every call, and `pg` sends its text once per connection. Elsewhere (PGlite) `tx.execute(query)`.
 * `query` must build the same text on every call under one `name` (only its values differ):
 * `pg` refuses a name reused for another text. Columns are returned as `pg` parses them (no
 * timestamp, date or interval column: drizzle's session would return those as strings).
 * @throws database errors, as `tx.execute`.
 */
export async function namedRows<T>(tx: Tx, name: string, query: SQL): Promise<T[]> {
  const client = (tx as { $client?: unknown }).$client;
  if (client instanceof pg.Client) {
    const { sql: text, params } = (tx as unknown as { dialect: PgDialect }).dialect.sqlToQuery(query);
    return (await client.query<T & pg.QueryResultRow>({ name, text, values: params })).rows;
  }
  return rowsOf<T>(await tx.execute(query));
}
