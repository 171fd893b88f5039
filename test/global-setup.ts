import { detectPostgres, detectRedis, detectSshd, startLocalPostgres, startLocalRedis, thisMachine, type LocalServer } from './helpers/local-services.js';

/**
 * Vitest global setup (README, "Development"): a fresh clone's `npm test` runs as much of the real thing
 * as the machine allows. For each server the suites need and the environment does not name
 * (COFFER_TEST_DATABASE_URL, COFFER_TEST_REDIS_URL, COFFER_TEST_SSHD), start or enable the
 * machine's own, on a free port in a temp dir; then print ONE line saying what runs where and
 * what could not run, and why. Workers inherit the variables set here.
 *
 * CI (CI=true) never starts anything: it configures its servers and the helpers fail loudly when
 * one is missing or unreachable. COFFER_TEST_LOCAL=off turns the local servers off (quick runs).
 */
export default async function setup(): Promise<() => Promise<void>> {
  const env = process.env;
  const started: LocalServer[] = [];
  const stopAll = async () => {
    await Promise.allSettled(started.map((server) => server.stop()));
  };
  if (env.CI === 'true') return stopAll;
  // The sbin directories hold what the servers need (sshd, useradd, runuser) but are often not on a
  // user's PATH; the helpers and the suites run these tools by name.
  const path = (env.PATH ?? '').split(':').filter((dir) => dir !== '');
  env.PATH = [...path, ...['/usr/local/sbin', '/usr/sbin', '/sbin'].filter((dir) => !path.includes(dir))].join(':');
  const notRun: string[] = [];
  const local: string[] = [];
  const off = env.COFFER_TEST_LOCAL === 'off';

  if (env.COFFER_TEST_SSHD === undefined || env.COFFER_TEST_SSHD === '') {
    const sshd = detectSshd(thisMachine);
    if (off) notRun.push('SFTP suites (COFFER_TEST_LOCAL=off)');
    else if (sshd.ok) {
      env.COFFER_TEST_SSHD = sshd.value;
      local.push(`SFTP on ${sshd.how}`);
    } else notRun.push(`SFTP suites (${sshd.why})`);
  }

  const startIfMissing = async (variable: string, label: string, start: () => Promise<{ server: LocalServer; how: string } | string>) => {
    if (env[variable] !== undefined && env[variable] !== '') return;
    if (off) {
      notRun.push(`${label} suites (COFFER_TEST_LOCAL=off)`);
      return;
    }
    try {
      const outcome = await start();
      if (typeof outcome === 'string') notRun.push(`${label} suites (${outcome})`);
      else {
        started.push(outcome.server);
        env[variable] = outcome.server.url;
        local.push(`${label} on ${outcome.how}`);
      }
    } catch (error) {
      notRun.push(`${label} suites (${(error as Error).message.split('\n')[0]})`);
    }
  };
  await Promise.all([
    startIfMissing('COFFER_TEST_DATABASE_URL', 'PostgreSQL', async () => {
      const postgres = detectPostgres(thisMachine);
      return postgres.ok ? { server: await startLocalPostgres(postgres.value), how: postgres.how } : postgres.why;
    }),
    startIfMissing('COFFER_TEST_REDIS_URL', 'Redis', async () => {
      const redis = detectRedis(thisMachine);
      return redis.ok ? { server: await startLocalRedis(redis.value), how: redis.how } : redis.why;
    }),
  ]);
  // Cluster suites need both stores.
  if (notRun.some((entry) => entry.startsWith('PostgreSQL') || entry.startsWith('Redis'))) notRun.push('two-node cluster suite (needs PostgreSQL and Redis)');

  const parts = [local.length > 0 ? `local servers: ${local.join('; ')}` : null, notRun.length > 0 ? `NOT RUN: ${notRun.join('; ')}` : 'every suite runs'];
  console.log(`coffer tests: ${parts.filter((part) => part !== null).join(' | ')}`);
  return stopAll;
}
