/**
 * Summarises a V8 `.cpuprofile` (written by `node --cpu-prof`) without any profiler UI: time per
 * function by self time, per package or Coffer source file, and the inclusive time of Coffer's
 * own functions (each sample counted once per function on its stack).
 */

/** The parts of a V8 CPU profile this summary reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

export interface CostLine {
  name: string;
  ms: number;
  /** Share of the busy time (idle excluded), percent. */
  percent: number;
}

export interface ProfileSummary {
  /** Sampled time with the process not idle, ms. */
  busyMs: number;
  idleMs: number;
  bySelf: CostLine[];
  byArea: CostLine[];
  /** Coffer's functions (compiled src/), time with the function anywhere on the stack. */
  cofferInclusive: CostLine[];
}

/** Where a script lives: a package, a Coffer source file, Node's own code, or V8 itself. */
export function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const modules = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (modules !== null) return `pkg ${modules[1]}`;
  if (url.startsWith('node:')) return 'node internals';
  // Coffer's server runs from dist/ (src/ compiled one to one).
  const source = /\/dist\/(.+)\.js$/.exec(url);
  if (source !== null) return `coffer src/${source[1]}.ts`;
  return url.replace(/^file:\/\/.*\//, '');
}

/** A script's URL without the machine's path: from its package's node_modules, or from dist/. */
function shortUrl(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) return url.slice(modules + 1);
  const dist = url.lastIndexOf('/dist/');
  return dist !== -1 ? url.slice(dist + 1) : url.replace(/^file:\/\/.*\//, '');
}

function frameName(frame: { functionName: string; url: string; lineNumber: number }): string {
  const file = frame.url === '' ? '' : ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
  return `${frame.functionName === '' ? '(anonymous)' : frame.functionName}${file}`;
}

const isCoffer = (url: string) => /\/dist\/.+\.js$/.test(url) && !url.includes('/node_modules/');

function top(totals: Map<string, number>, busyMs: number, limit: number): CostLine[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, us]) => ({ name, ms: Math.round(us / 100) / 10, percent: busyMs > 0 ? Math.round((us / 1000 / busyMs) * 1000) / 10 : 0 }));
}

/** Self, per-area and inclusive costs of a profile; `limit` lines each. */
export function summarizeProfile(profile: CpuProfile, limit = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const area = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let idleUs = 0;
  let busyUs = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const node = byId.get(id);
    if (node === undefined) return;
    if (node.callFrame.functionName === '(idle)') {
      idleUs += delta;
      return;
    }
    busyUs += delta;
    const name = frameName(node.callFrame);
    self.set(name, (self.get(name) ?? 0) + delta);
    const where = areaOf(node.callFrame.url, node.callFrame.functionName);
    area.set(where, (area.get(where) ?? 0) + delta);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame === undefined || !isCoffer(frame.url)) continue;
      const key = frameName(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + delta);
    }
  });
  const busyMs = busyUs / 1000;
  return { busyMs: Math.round(busyMs), idleMs: Math.round(idleUs / 1000), bySelf: top(self, busyMs, limit), byArea: top(area, busyMs, limit), cofferInclusive: top(inclusive, busyMs, limit) };
}

/** The summary as text, three tables. */
export function formatProfile(summary: ProfileSummary): string {
  const section = (title: string, lines: CostLine[]) => [title, ...lines.map((line) => `  ${line.percent.toFixed(1).padStart(5)}%  ${line.ms.toFixed(0).padStart(7)} ms  ${line.name}`)];
  return [
    `busy ${summary.busyMs} ms, idle ${summary.idleMs} ms (percentages are of busy time)`,
    ...section('By self time:', summary.bySelf),
    ...section('By package or source file (self time):', summary.byArea),
    ...section("Coffer's functions, inclusive (on the stack):", summary.cofferInclusive),
  ].join('\n');
}
