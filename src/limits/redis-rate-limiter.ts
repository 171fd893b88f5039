import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { verdictOf, type RateLimitCheck, type RateLimitOutcome, type RateLimiter } from './rate-limiter.js';

/**
 * The sliding window of rate-limiter.ts, shared by every node: one sorted set per key (member:
 * a unique request id, score: its time in ms). One script decides for all the budgets of a
 * request, so two nodes can never both take the last slot, and a refused request is counted
 * nowhere. Each key expires one window after its newest entry, so Redis never grows without bound.
 *
 * KEYS: the budgets. ARGV[1]: now (ms); ARGV[2]: the request's member; then limit and window (ms)
 * per key. Returns {allowed, then per key: exhausted, count after, time its room next grows (ms, or -1)}.
 */
const CONSUME = `
local now = tonumber(ARGV[1])
local counts = {}
local allowed = 1
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[1 + 2 * i])
  local window = tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  counts[i] = redis.call('ZCARD', key)
  if counts[i] >= limit then allowed = 0 end
end
local out = {allowed}
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[1 + 2 * i])
  local window = tonumber(ARGV[2 + 2 * i])
  local count = counts[i]
  local exhausted = 0
  if count >= limit then exhausted = 1 end
  if allowed == 1 then
    redis.call('ZADD', key, now, ARGV[2])
    redis.call('PEXPIRE', key, window)
    count = count + 1
  end
  local room_at = -1
  if count > 0 then
    local index = count - limit
    if index < 0 then index = 0 end
    local entry = redis.call('ZRANGE', key, index, index, 'WITHSCORES')
    room_at = tonumber(entry[2]) + window
  end
  out[#out + 1] = exhausted
  out[#out + 1] = count
  out[#out + 1] = room_at
end
return out
`;

interface WithConsumeScript {
  cofferRateLimitConsume(numberOfKeys: number, ...args: Array<string | number>): Promise<number[]>;
}

/**
 * The limiter shared by every node through Redis (COFFER_REDIS_URL). Times come from the
 * caller's clock, so nodes need synchronised clocks (NTP): a node whose clock is off by s seconds
 * moves the window edges of its own requests by s.
 */
export class RedisRateLimiter implements RateLimiter {
  /** Unique per instance; with the sequence, a member no other request on any node uses. */
  private readonly instance = randomBytes(6).toString('hex');
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'coffer:ratelimit:',
  ) {
    // EVALSHA with a fallback to EVAL when Redis does not know the script yet.
    if (!('cofferRateLimitConsume' in redis)) redis.defineCommand('cofferRateLimitConsume', { lua: CONSUME });
  }

  async consume(checks: readonly RateLimitCheck[], nowMs: number): Promise<RateLimitOutcome> {
    if (checks.length === 0) return { allowed: true, verdicts: [] };
    const member = `${this.instance}:${(this.sequence += 1)}`;
    const args: Array<string | number> = [...checks.map((check) => this.prefix + check.key), nowMs, member];
    for (const check of checks) args.push(check.limit, check.windowMs);
    const reply = await (this.redis as unknown as WithConsumeScript).cofferRateLimitConsume(checks.length, ...args);
    const allowed = reply[0] === 1;
    const verdicts = checks.map((check, i) => {
      const [exhausted, count, roomAt] = reply.slice(1 + 3 * i, 4 + 3 * i) as [number, number, number];
      return verdictOf(check, count, roomAt < 0 ? null : roomAt, exhausted === 1, nowMs);
    });
    return { allowed, verdicts };
  }
}
