/** What one drill did and what it lost: the unit every drill reports in. */
export interface DrillReport {
  name: string;
  /** True when nothing was lost and nothing misbehaved. */
  ok: boolean;
  /** What was tried, one line each. */
  tried: string[];
  /** What was lost or went wrong, one line each; empty when nothing. */
  lost: string[];
  /** Figures worth keeping (counts, seconds). */
  figures: Record<string, number | string>;
  /** Log files the drill's servers wrote (the log scan reads them). */
  logFiles: string[];
  /** Why the drill could not run here; absent when it ran. */
  notRun?: string;
}

/** A drill that could not run here (no PostgreSQL configured, no pg_ctlcluster): said, not hidden. */
export function notRun(name: string, reason: string): DrillReport {
  return { name, ok: true, tried: [], lost: [], figures: {}, logFiles: [], notRun: reason };
}

/** The report as text. */
export function formatDrill(report: DrillReport): string {
  if (report.notRun !== undefined) return `NOT RUN  ${report.name}: ${report.notRun}`;
  const lines = [`${report.ok ? 'PASS' : 'FAIL'}  ${report.name}`];
  for (const line of report.tried) lines.push(`  tried: ${line}`);
  for (const [name, value] of Object.entries(report.figures)) lines.push(`  ${name}: ${value}`);
  if (report.lost.length === 0) lines.push('  lost: nothing');
  for (const line of report.lost.slice(0, 20)) lines.push(`  LOST: ${line}`);
  if (report.lost.length > 20) lines.push(`  … and ${report.lost.length - 20} more`);
  return lines.join('\n');
}
