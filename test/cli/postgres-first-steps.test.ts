import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { postgresUrl } from '../helpers/postgres.js';
import { createDatabaseHint, databaseName, ensurePostgresDatabase } from '../../src/store/postgres-database.js';
import { runCoffer, startServe, useCofferProcesses, type RunResult, type ServedCoffer } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/*
 * PostgreSQL's first steps as docs/deployment.md ("PostgreSQL: first steps") writes them: `coffer
 * init` on a server where the database does not exist yet creates it, migrates it and prints the
 * first credentials with the portal owner's login, which signs in to the portal `serve` then
 * offers. Other commands never create the database and say what to run. A user who may not
 * create databases is told the exact command. Each test's database is uniquely named and dropped.
 */

vi.setConfig({ testTimeout: 120_000 });
const defer = useCofferProcesses();

const server = postgresUrl;

/** A URL of the test server naming `database` (and, when given, logging in as `user`). */
function urlFor(database: string, user?: string): string {
  const url = new URL(server!);
  url.pathname = `/${encodeURIComponent(database)}`;
  if (user !== undefined) {
    url.username = user;
    url.password = '';
  }
  return url.toString();
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: server!, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`COFFER_TEST_DATABASE_URL is set but PostgreSQL is unreachable: ${(error as Error).message}`);
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const databaseExists = (name: string) => admin(async (client) => (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1);

const databases: string[] = [];
const roles: string[] = [];

/** A database name no one has, with a hyphen and capitals: it works only if quoted. */
function newDatabaseName(): string {
  const name = `Coffer-First_${randomBytes(5).toString('hex')}`;
  databases.push(name);
  return name;
}

afterAll(async () => {
  if (server === null) return;
  await admin(async (client) => {
    for (const name of databases) await client.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`);
    for (const role of roles) await client.query(`DROP ROLE IF EXISTS ${quote(role)}`);
  });
});

function env(database: string, user?: string): Record<string, string> {
  const data = tempDir('coffer-pg-first-');
  defer(data.cleanup);
  return { COFFER_DATABASE_URL: urlFor(database, user), COFFER_MASTER_KEY: randomBytes(32).toString('base64'), COFFER_DATA_DIR: data.dir };
}

function failedWithOneLine(result: RunResult): string {
  const context = `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
  expect(result.code, context).toBe(1);
  expect(result.stdout, context).toBe('');
  expect(result.stderrLines, context).toHaveLength(1);
  return result.stderrLines[0]!;
}

/** The `name  value` lines `init` prints without --json. */
function fields(stdout: string): Record<string, string> {
  return Object.fromEntries(stdout.trim().split('\n').map((line) => line.split(/ {2,}/) as [string, string]));
}

/** Signs in to a served portal with email and password (CSRF cookie and all); the HTTP status. */
async function portalSignIn(served: ServedCoffer, agent: Agent, email: string, password: string): Promise<number> {
  const form = await request(`${served.url}/portal/sign-in`, { dispatcher: agent });
  const page = await form.body.text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] as string;
  const cookie = String(form.headers['set-cookie']).split(';')[0] as string;
  const signIn = await request(`${served.url}/portal/sign-in`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  await signIn.body.dump();
  return signIn.statusCode;
}

if (server !== null) describe('PostgreSQL first steps', () => {
  it('migrate and the other commands stop on a missing database, create nothing, and say that init creates it', async () => {
    const name = newDatabaseName();
    const settings = env(name);
    for (const args of [['migrate'], ['organizations', 'list'], ['users', 'list', '--json']]) {
      const line = failedWithOneLine(await runCoffer(args, settings));
      expect(line).toBe(`coffer: PostgreSQL database "${name}" (COFFER_DATABASE_URL) does not exist; \`coffer init\` (or \`coffer serve\`) creates it`);
    }
    expect(await databaseExists(name)).toBe(false);
  });

  it('init creates the database, migrates it and prints the credentials with a portal owner who can sign in; a second init refuses', async () => {
    const name = newDatabaseName();
    const settings = env(name);
    const init = await runCoffer(['init'], settings);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).toContain(`Created PostgreSQL database "${name}".`);
    const printed = fields(init.stdout);
    expect(Object.keys(printed)).toEqual(['organization_token', 'environment_key', 'access_secret_key', 'access_secret', 'portal_email', 'portal_password']);
    expect(printed.portal_email).toBe('owner@coffer.local');
    expect(printed.portal_password).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(await databaseExists(name)).toBe(true);

    // Migrated: nothing left to apply.
    const migrate = await runCoffer(['migrate', '--json'], settings);
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(JSON.parse(migrate.stdout)).toEqual({ applied: 'none' });
    const users = await runCoffer(['users', 'list', '--organization', printed.organization_token!, '--json'], settings);
    expect(JSON.parse(users.stdout)).toMatchObject([{ email: 'owner@coffer.local', role: 'owner' }]);

    const again = failedWithOneLine(await runCoffer(['init'], settings));
    expect(again).toMatch(/already holds organizations/);

    // serve finds the database initialised: no credentials again, and the owner signs in.
    const served = await startServe(settings);
    expect(served.init).toBeNull();
    expect(served.stderr()).not.toContain('portal_password');
    expect(served.stderr()).not.toContain('Created PostgreSQL database');
    const agent = new Agent({ connect: { ca: served.caPath === null ? undefined : fs.readFileSync(served.caPath, 'utf8') } });
    try {
      expect(await portalSignIn(served, agent, printed.portal_email!, printed.portal_password!)).toBe(303);
      expect(await portalSignIn(served, agent, printed.portal_email!, 'not the password at all')).toBe(401);
    } finally {
      await agent.close();
    }
    // The access secret works on the API.
    const api = await request(`${served.url}/v1/gateways.json`, {
      dispatcher: new Agent({ connect: { ca: fs.readFileSync(served.caPath!, 'utf8') } }),
      headers: { authorization: `Basic ${Buffer.from(`${printed.environment_key}:${printed.access_secret}`).toString('base64')}` },
    });
    expect(api.statusCode).toBe(200);
    await api.body.dump();
    served.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });

  it('serve on a missing database creates it and prints the first credentials once, as on SQLite', async () => {
    const name = newDatabaseName();
    const settings = env(name);
    const first = await startServe(settings);
    expect(first.stderr()).toContain(`Created PostgreSQL database "${name}".`);
    expect(first.init).not.toBeNull();
    expect(first.stderr()).toMatch(/^ {2}portal_email +owner@coffer\.local$/m);
    first.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const second = await startServe(settings);
    expect(second.init).toBeNull();
    second.kill('SIGTERM');
    await second.exited;
  });

  it('init --json on a new database: one JSON line on stdout, the note on stderr', async () => {
    const name = newDatabaseName();
    const result = await runCoffer(['init', '--json'], env(name));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdoutLines).toHaveLength(1);
    expect(Object.keys(JSON.parse(result.stdoutLines[0]!))).toContain('portal_password');
    expect(result.stderrLines).toEqual([`Created PostgreSQL database "${name}".`]);
  });

  it('nodes creating the same database at once: exactly one creates it, the others find it made', async () => {
    const name = newDatabaseName();
    const created = await Promise.all(Array.from({ length: 4 }, () => ensurePostgresDatabase(urlFor(name))));
    expect(created.filter(Boolean)).toHaveLength(1);
    expect(await databaseExists(name)).toBe(true);
    expect(await ensurePostgresDatabase(urlFor(name))).toBe(false);
  });

  it('an unreachable server is reported as it is, and nothing is attempted', async () => {
    const unreachable = new URL(urlFor(newDatabaseName()));
    unreachable.port = '1';
    await expect(ensurePostgresDatabase(unreachable.toString())).rejects.toThrow(/ECONNREFUSED/);
  });

  it('a user who may not create databases gets the command to run, and nothing is created', async () => {
    const role = `coffer_nocreate_${randomBytes(4).toString('hex')}`;
    roles.push(role);
    await admin((client) => client.query(`CREATE ROLE ${quote(role)} LOGIN NOCREATEDB`));
    const name = newDatabaseName();
    const line = failedWithOneLine(await runCoffer(['init'], env(name, role)));
    const host = new URL(server).hostname;
    const port = new URL(server).port || '5432';
    expect(line).toBe(
      `coffer: database "${name}" does not exist and this user may not create it; create it as a PostgreSQL superuser: ` +
        `createdb -h ${host} -p ${port} -O ${role} ${name} (or in psql: CREATE DATABASE "${name}" OWNER "${role}";)`,
    );
    expect(await databaseExists(name)).toBe(false);

    // Done as told, init then works for that user.
    await admin((client) => client.query(`CREATE DATABASE ${quote(name)} OWNER ${quote(role)}`));
    const init = await runCoffer(['init', '--json'], env(name, role));
    expect(init.code, init.stderr).toBe(0);
    expect(init.stderr).not.toContain('Created PostgreSQL database');
  });
});

describe('the database a PostgreSQL URL names', () => {
  it('is read percent-decoded, and the hint quotes it for psql', () => {
    const url = 'postgres://app%20user:s3cret@db.internal:6543/Coffer-Prod%22x?sslmode=require';
    expect(databaseName(url)).toBe('Coffer-Prod"x');
    expect(databaseName('postgres://u@h/')).toBe('');
    const hint = createDatabaseHint(url);
    expect(hint).toBe('create it as a PostgreSQL superuser: createdb -h db.internal -p 6543 -O app user Coffer-Prod"x (or in psql: CREATE DATABASE "Coffer-Prod""x" OWNER "app user";)');
    // The password is never part of what is printed.
    expect(hint).not.toContain('s3cret');
  });
});
