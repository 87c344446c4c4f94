/**
 * Refusing the COMMIT of transactions that wrote a table, on PostgreSQL: how the audit tests prove
 * an event commits with its change (audit-in-transaction.test.ts, epoch-audit.test.ts).
 */
import { onTestFinished } from "vitest";

/** Runs one SQL text on the database under test (DDL: no parameters). */
export type Exec = (text: string) => Promise<unknown>;

/**
 * Until the returned function is called (or the test ends), every transaction that inserted or
 * updated a row of `table` fails at COMMIT with SQLSTATE P0001: a constraint trigger deferred to
 * the commit, so it fires after every statement of the transaction, the audit insert included.
 */
export async function failCommitsWriting(exec: Exec, table: string): Promise<() => Promise<void>> {
  const name = `teammem_test_refuse_commit_${table}`;
  await exec(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'test trigger: commit of a write to % refused', TG_TABLE_NAME; END $$`,
  );
  await exec(`CREATE CONSTRAINT TRIGGER ${name} AFTER INSERT OR UPDATE ON ${table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  const lift = async () => {
    await exec(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
    await exec(`DROP FUNCTION IF EXISTS ${name}()`);
  };
  onTestFinished(lift); // the database goes back to the file's pool: no trigger may stay
  return lift;
}
