import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';

/**
 * The kinds of value an environment variable holds, as zod schemas over its trimmed text. Each
 * problem message is what follows "VARIABLE: " in the one line start-up prints (README.md
 * "Configuration"), so it never repeats the value (a key or token must not reach a log).
 */

/** Records `message` as the problem with the value being parsed. */
export function invalid(ctx: z.RefinementCtx, message: string, variable?: string): never {
  ctx.issues.push({ code: 'custom', message, input: undefined, ...(variable === undefined ? {} : { path: [variable] }) });
  return z.NEVER;
}

/** An environment variable: unset or blank is absent (so `value.default(…)` or `.optional()` decides), otherwise its trimmed text. */
export function variable<T extends z.ZodType>(value: T) {
  return z.preprocess((raw) => (typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : undefined), value);
}

export const text = z.string();

export const absolutePath = z.string().transform((raw) => path.resolve(raw));

/** The value in lower case, which must be one of `values`. */
export function oneOf<const T extends string>(values: readonly T[], message: string) {
  return z.string().transform((raw, ctx) => {
    const value = raw.toLowerCase();
    return (values as readonly string[]).includes(value) ? (value as T) : invalid(ctx, message);
  });
}

/** Decimal digits only, from `min` to `max`. */
export function integer(min: number, max: number) {
  const message = `must be an integer from ${min} to ${max}`;
  return z
    .string()
    .refine((raw) => /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max, message)
    .transform(Number);
}

/** A TCP port; 0 picks a free one. */
export const port = integer(0, 65535);

export const secondsToMs = (seconds: number): number => seconds * 1000;

const MS_PER_UNIT = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/**
 * A duration in milliseconds: digits followed by one of `units`, or by nothing for seconds
 * ("600", "10m", "500ms"), from `minMs` to `maxMs`.
 */
export function duration(units: readonly (keyof typeof MS_PER_UNIT)[], minMs: number, maxMs: number, message: string) {
  return z.string().transform((raw, ctx) => {
    const match = /^(\d+)([a-z]*)$/.exec(raw);
    const unit = match === null ? undefined : match[2] === '' ? 's' : units.find((allowed) => allowed === match[2]);
    const ms = match === null || unit === undefined ? 0 : Number(match[1]) * MS_PER_UNIT[unit];
    return ms >= minMs && ms <= maxMs ? ms : invalid(ctx, message);
  });
}

/** One 32-byte key in base64. */
function decodeKey(raw: string, ctx: z.RefinementCtx): Buffer {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(raw)) return invalid(ctx, 'must be base64');
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) return invalid(ctx, `must decode to 32 bytes (got ${key.length}); try: openssl rand -base64 32`);
  return key;
}

export const key = z.string().transform(decodeKey);

/** Keys separated by commas. */
export const keys = z.string().transform((raw, ctx) => raw.split(',').map((part) => decodeKey(part.trim(), ctx)));

export const jsonObject = z.string().transform((raw, ctx) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return invalid(ctx, 'must be a JSON object');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return invalid(ctx, 'must be a JSON object');
  return parsed as Record<string, unknown>;
});

export const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export function isCidrOrAddress(entry: string): boolean {
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined || address === undefined) return false;
  const family = net.isIP(address);
  if (family === 0) return false;
  if (bits === undefined) return true;
  return /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** Comma-separated entries (empty ones dropped), each of which must pass `accepts`; `problem` names a refused one. */
export function listOf(accepts: (entry: string) => boolean, problem: (entry: string) => string) {
  return z.string().transform((raw, ctx) => {
    const entries = raw.split(',').map((part) => part.trim()).filter((part) => part !== '');
    const refused = entries.find((entry) => !accepts(entry));
    return refused === undefined ? entries : invalid(ctx, problem(refused));
  });
}
