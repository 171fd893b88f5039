import { describe, expect, it } from 'vitest';
import { formatDrill, notRun, type DrillReport } from '../../drills/drill-report.js';

describe('drill reports', () => {
  const base: DrillReport = { name: 'kill -9', ok: true, tried: ['8 writers'], lost: [], figures: { acknowledged_2xx: 12 }, logFiles: ['x.log'] };

  it('says what was tried, the figures, and that nothing was lost', () => {
    expect(formatDrill(base)).toBe('PASS  kill -9\n  tried: 8 writers\n  acknowledged_2xx: 12\n  lost: nothing');
  });

  it('lists what was lost, at most twenty lines and how many more', () => {
    const lost = Array.from({ length: 23 }, (_, index) => `token ${index}`);
    const text = formatDrill({ ...base, ok: false, lost });
    expect(text.startsWith('FAIL  kill -9')).toBe(true);
    expect(text).toContain('  LOST: token 19');
    expect(text).not.toContain('token 20');
    expect(text.endsWith('  … and 3 more')).toBe(true);
  });

  it('says when a drill could not run here, and why, without failing the run', () => {
    const report = notRun('PostgreSQL restarted under load', 'COFFER_BENCH_DATABASE_URL is not set');
    expect(report.ok).toBe(true);
    expect(formatDrill(report)).toBe('NOT RUN  PostgreSQL restarted under load: COFFER_BENCH_DATABASE_URL is not set');
  });
});
