import fs from 'node:fs';
import { sql } from 'kysely';
import type { TestServer } from './server.js';

/**
 * Everything the server's database holds, as bytes to search: for SQLite the database file and
 * its WAL as they are on disk (old pages included); for PostgreSQL every row of every table of
 * the schema as JSON text.
 */
export async function storedBytes(server: TestServer): Promise<Buffer> {
  const store = server.core.config.store;
  if (store.kind === 'sqlite') {
    return Buffer.concat(
      [store.path, `${store.path}-wal`].filter((file) => fs.existsSync(file)).map((file) => fs.readFileSync(file)),
    );
  }
  const db = server.core.store.db;
  const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
  const parts: string[] = [];
  for (const { table_name: table } of tables.rows) {
    const rows = await sql<{ row: string }>`select row_to_json(t)::text as row from ${sql.table(table)} t`.execute(db);
    parts.push(...rows.rows.map((row) => row.row));
  }
  return Buffer.from(parts.join('\n'), 'utf8');
}
