/**
 * Redis for tests. COFFER_TEST_REDIS_URL names a server; the suites that need it run only when
 * it is set (so `npm test` passes on a machine with nothing but Node). Configured but
 * unreachable is a failure, never a skip; in CI (CI=true) not configuring it is a failure too.
 */
export const redisUrl = process.env.COFFER_TEST_REDIS_URL ?? null;

if (redisUrl === null && process.env.CI === 'true') {
  throw new Error('CI must set COFFER_TEST_REDIS_URL so the Redis suites run');
}
