/**
 * A reader of the Prometheus text exposition format (version 0.0.4), enough for Coffer's own
 * metrics: `# HELP` / `# TYPE` lines are skipped, each sample line gives a name, its labels
 * (with `\\`, `\"` and `\n` escapes) and a value (`+Inf`, `-Inf` and `NaN` in any case included).
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

/** Prometheus reads these case-insensitively (Go's ParseFloat); prom-client writes NaN as `Nan`. */
function parseValue(text: string): number {
  const lower = text.toLowerCase();
  if (lower === '+inf' || lower === 'inf') return Number.POSITIVE_INFINITY;
  if (lower === '-inf') return Number.NEGATIVE_INFINITY;
  if (lower === 'nan') return Number.NaN;
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new Error(`not a sample value: ${JSON.stringify(text)}`);
  return value;
}

/** Labels from just after `{` in `line`; returns them and the index after the closing `}`. */
function parseLabels(line: string, start: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start;
  for (;;) {
    while (line[i] === ' ' || line[i] === ',') i += 1;
    if (line[i] === '}') return { labels, end: i + 1 };
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(i))?.[0];
    if (name === undefined || line[i + name.length] !== '=' || line[i + name.length + 1] !== '"') throw new Error(`bad labels in ${JSON.stringify(line)}`);
    i += name.length + 2;
    let value = '';
    for (; i < line.length && line[i] !== '"'; i += 1) {
      if (line[i] === '\\') {
        i += 1;
        value += line[i] === 'n' ? '\n' : (line[i] ?? '');
      } else {
        value += line[i];
      }
    }
    if (line[i] !== '"') throw new Error(`unterminated label value in ${JSON.stringify(line)}`);
    labels[name] = value;
    i += 1;
  }
}

/** Every sample of an exposition, in order. Throws on a line that is not the format. */
export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const name = NAME.exec(line)?.[0];
    if (name === undefined) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    let rest = name.length;
    let labels: Record<string, string> = {};
    if (line[rest] === '{') {
      const parsed = parseLabels(line, rest + 1);
      labels = parsed.labels;
      rest = parsed.end;
    }
    const [value = '', timestamp] = line.slice(rest).trim().split(/\s+/);
    if (timestamp !== undefined && !/^-?\d+$/.test(timestamp)) throw new Error(`bad timestamp in ${JSON.stringify(line)}`);
    samples.push({ name, labels, value: parseValue(value) });
  }
  return samples;
}

/** The samples named `name` whose labels include every pair of `labels`. */
export function samplesOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
}

/** The sum of the matching samples' values (0 when none match). */
export function sumOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samplesOf(samples, name, labels).reduce((total, sample) => total + sample.value, 0);
}

/** A histogram's cumulative buckets (summed over the matching series), count and sum. */
export interface HistogramData {
  /** Upper bound → observations at or below it, ascending; the last is +Inf. */
  buckets: Array<{ le: number; count: number }>;
  count: number;
  sum: number;
}

export function histogramOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): HistogramData {
  const byBound = new Map<number, number>();
  for (const sample of samplesOf(samples, `${name}_bucket`, labels)) {
    const le = parseValue(sample.labels.le ?? '');
    byBound.set(le, (byBound.get(le) ?? 0) + sample.value);
  }
  const buckets = [...byBound].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le);
  return { buckets, count: sumOf(samples, `${name}_count`, labels), sum: sumOf(samples, `${name}_sum`, labels) };
}

/** What happened between two scrapes of one histogram (counters only grow while the process lives). */
export function histogramDelta(before: HistogramData, after: HistogramData): HistogramData {
  const earlier = new Map(before.buckets.map((bucket) => [bucket.le, bucket.count]));
  return {
    buckets: after.buckets.map((bucket) => ({ le: bucket.le, count: bucket.count - (earlier.get(bucket.le) ?? 0) })),
    count: after.count - before.count,
    sum: after.sum - before.sum,
  };
}

/**
 * The q-quantile (0 < q ≤ 1) estimated as Prometheus' histogram_quantile does: linear within the
 * bucket holding the rank; the highest finite bound when the rank falls in +Inf. Null when empty.
 */
export function quantileOf(histogram: HistogramData, q: number): number | null {
  if (histogram.count <= 0) return null;
  const rank = q * histogram.count;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const { le, count } of histogram.buckets) {
    if (count >= rank) {
      if (le === Number.POSITIVE_INFINITY) return lowerBound;
      const inBucket = count - lowerCount;
      return inBucket === 0 ? le : lowerBound + ((le - lowerBound) * (rank - lowerCount)) / inBucket;
    }
    lowerBound = le;
    lowerCount = count;
  }
  return lowerBound;
}
