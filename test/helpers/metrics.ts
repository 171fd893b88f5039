import { Agent, request } from 'undici';
import { parsePrometheusText, type Sample } from '../../bench/prometheus-text.js';
import { findCardData, KNOWN_TEST_PANS } from './leak-scan.js';

/** One GET /metrics: the status, the headers and, on 200, the parsed samples. */
export interface Scrape {
  status: number;
  headers: Record<string, string>;
  text: string;
  samples: Sample[];
}

/**
 * GETs `url` with these headers, without the API client (its leak guard would read a sample's
 * long fractional value, e.g. a histogram sum, as a card number: metrics are checked by
 * `expectNoSecretsIn` instead, which scans the names and labels and looks for known secrets).
 */
export async function scrapeMetrics(url: string, headers: Record<string, string> = {}, ca: string | null = null): Promise<Scrape> {
  const dispatcher = new Agent({ connect: ca === null ? {} : { ca } });
  try {
    const response = await request(url, { method: 'GET', headers, dispatcher });
    const text = await response.body.text();
    const flat: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) flat[name] = Array.isArray(value) ? value.join(', ') : String(value);
    return { status: response.statusCode, headers: flat, text, samples: response.statusCode === 200 ? parsePrometheusText(text) : [] };
  } finally {
    await dispatcher.close();
  }
}

/**
 * Card data and secrets in an exposition: any known test PAN or `secrets` anywhere, and anything
 * that reads as a card number in a metric's name or labels (the part before the value).
 */
export function secretsIn(text: string, secrets: readonly string[]): string[] {
  const found = new Set<string>();
  for (const secret of [...KNOWN_TEST_PANS, ...secrets]) if (secret !== '' && text.includes(secret)) found.add(secret);
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const labelled = line.slice(0, line.lastIndexOf(' '));
    for (const finding of findCardData(labelled)) found.add(finding);
  }
  return [...found];
}
