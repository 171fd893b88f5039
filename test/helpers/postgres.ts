import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * PostgreSQL for tests. COFFER_TEST_DATABASE_URL names a server; each suite gets a database
 * of its own, dropped afterwards. Configured but unreachable is a failure, never a skip; in
 * CI (CI=true) not configuring it at all is a failure too.
 */
export const postgresUrl = process.env.COFFER_TEST_DATABASE_URL ?? null;

if (postgresUrl === null && process.env.CI === 'true') {
  throw new Error('CI must set COFFER_TEST_DATABASE_URL so the PostgreSQL suites run');
}

/** Store kinds to run a suite on: SQLite always, PostgreSQL when configured. */
export const storeKinds: Array<'sqlite' | 'postgres'> = postgresUrl === null ? ['sqlite'] : ['sqlite', 'postgres'];

export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (postgresUrl === null) throw new Error('COFFER_TEST_DATABASE_URL is not set');
  const name = `coffer_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`COFFER_TEST_DATABASE_URL is set but PostgreSQL is unreachable: ${(error as Error).message}`);
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
