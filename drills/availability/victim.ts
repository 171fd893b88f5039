import fs from 'node:fs';
import { Agent, request } from 'undici';
import { ApiClient, basicAuth, type ApiCredentials } from '../../bench/api-client.js';
import { runCofferCommand } from '../../bench/coffer-process.js';
import { summarizeLatencies, type LatencySummary } from '../../bench/latency.js';

/**
 * The victim of the availability drill: another tenant listing its gateways
 * (`GET /v1/gateways.json?count=1`) in a loop on one keep-alive connection, as the report
 * measured it. Its latency idle and under each attack is what the drill judges.
 */

/** A second organization with a transact secret and a test gateway: the tenant whose latency is measured. */
export async function createVictimTenant(baseUrl: string, env: Record<string, string>): Promise<ApiCredentials> {
  const cli = async (args: string[]) => JSON.parse(await runCofferCommand([...args, '--json'], env)) as Record<string, string>;
  const organization = (await cli(['organizations', 'create', '--name', 'victim'])).token as string;
  const environment = (await cli(['environments', 'create', '--organization', organization, '--name', 'victim'])).environment_key as string;
  const secret = await cli(['access-secrets', 'create', '--organization', organization, '--environment', environment, '--role', 'transact']);
  const credentials = { environment_key: environment, access_secret: secret.access_secret as string };
  const client = new ApiClient(baseUrl, credentials, 1);
  try {
    await client.expect(201, 'POST', '/v1/gateways.json', { json: { gateway: { gateway_type: 'test' } } });
  } finally {
    await client.close();
  }
  return credentials;
}

export interface VictimSample {
  latency: LatencySummary;
  answered: number;
  /** Requests that failed or did not answer 200. */
  failed: number;
}

/** How long one victim request may take before it counts as failed (an attack may starve it). */
const VICTIM_TIMEOUT_MS = 15_000;

export async function measureVictim(baseUrl: string, credentials: ApiCredentials, durationMs: number): Promise<VictimSample> {
  const agent = new Agent({ connections: 1, keepAliveTimeout: 10_000 });
  const authorization = basicAuth(credentials);
  const times: number[] = [];
  let failed = 0;
  const until = Date.now() + durationMs;
  try {
    while (Date.now() < until) {
      const started = performance.now();
      try {
        const response = await request(`${baseUrl}/v1/gateways.json?count=1`, { headers: { authorization }, dispatcher: agent, signal: AbortSignal.timeout(VICTIM_TIMEOUT_MS) });
        await response.body.text();
        if (response.statusCode === 200) times.push(performance.now() - started);
        else failed += 1;
      } catch {
        failed += 1;
      }
    }
  } finally {
    await agent.close();
  }
  return { latency: summarizeLatencies(times), answered: times.length, failed };
}

/** The resident set of a process now, in MiB (Linux VmRSS), or null where /proc is not there. */
export function residentMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? null : Math.round(Number(match[1]) / 1024);
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; the peak seen, or null where unknown. */
export function watchResident(pid: number, everyMs = 200): { stop(): number | null } {
  let peak: number | null = residentMb(pid);
  const timer = setInterval(() => {
    const now = residentMb(pid);
    if (now !== null) peak = Math.max(peak ?? 0, now);
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}
