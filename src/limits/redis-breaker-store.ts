import type { Redis } from 'ioredis';
import { BREAKER_POLICY, breakerStateOf, type Admission, type BreakerState, type BreakerStore } from './circuit-breaker.js';

// One hash per gateway: failures, open_until, probe_until (ms). Scripts make each decision atomic
// across nodes; keys expire a day after the last news, so abandoned gateways leave nothing behind.
const ADMIT = `
local failures = tonumber(redis.call('HGET', KEYS[1], 'failures') or '0')
if failures < tonumber(ARGV[2]) then return {0, 0} end
local now = tonumber(ARGV[1])
local open_until = tonumber(redis.call('HGET', KEYS[1], 'open_until') or '0')
if now < open_until then return {2, open_until - now} end
local probe_until = tonumber(redis.call('HGET', KEYS[1], 'probe_until') or '0')
if now < probe_until then return {2, tonumber(ARGV[4])} end
redis.call('HSET', KEYS[1], 'probe_until', now + tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[5]))
return {1, 0}
`;

const FAILURE = `
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
if failures >= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'open_until', tonumber(ARGV[1]) + tonumber(ARGV[3]), 'probe_until', 0)
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return failures
`;

// Only an existing breaker: a bare HSET would recreate a deleted hash without an expiry, and it would stay forever.
const ABANDON_PROBE = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'probe_until', 0) end
return 0
`;

/** The breaker shared by every node through Redis (COFFER_REDIS_URL). */
export class RedisBreakerStore implements BreakerStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'coffer:breaker:',
    private readonly probeLeaseMs: number = BREAKER_POLICY.probeLeaseMs,
  ) {}

  async admit(gatewayKey: string, nowMs: number): Promise<Admission> {
    const [kind, waitMs] = (await this.redis.eval(
      ADMIT,
      1,
      this.prefix + gatewayKey,
      nowMs,
      BREAKER_POLICY.failureThreshold,
      this.probeLeaseMs,
      BREAKER_POLICY.openMs,
      BREAKER_POLICY.retentionMs,
    )) as [number, number];
    if (kind === 0) return { kind: 'allow' };
    if (kind === 1) return { kind: 'probe' };
    return { kind: 'reject', retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  async state(gatewayKey: string, nowMs: number): Promise<BreakerState> {
    const [failures, openUntil] = await this.redis.hmget(this.prefix + gatewayKey, 'failures', 'open_until');
    return breakerStateOf(Number(failures ?? 0), Number(openUntil ?? 0), nowMs);
  }

  async recordSuccess(gatewayKey: string): Promise<void> {
    await this.redis.del(this.prefix + gatewayKey);
  }

  async recordFailure(gatewayKey: string, nowMs: number): Promise<void> {
    await this.redis.eval(FAILURE, 1, this.prefix + gatewayKey, nowMs, BREAKER_POLICY.failureThreshold, BREAKER_POLICY.openMs, BREAKER_POLICY.retentionMs);
  }

  async abandonProbe(gatewayKey: string): Promise<void> {
    await this.redis.eval(ABANDON_PROBE, 1, this.prefix + gatewayKey);
  }
}
