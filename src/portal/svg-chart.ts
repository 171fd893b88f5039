import type { Bucket } from '../services/overview.service.js';
import { html, type SafeHtml } from './html.js';

const WIDTH = 600;
const HEIGHT = 140;
const AXIS = 18;

/**
 * A stacked bar chart (succeeded below, unsuccessful above) as inline SVG: rendered on the server,
 * no script, no external service. Presentation attributes and classes only (the CSP has no
 * 'unsafe-inline' for styles). The numbers are also in the table that follows each chart.
 */
export function barChart(title: string, buckets: Bucket[], tickEvery: number, tickLabel: (label: string) => string): SafeHtml {
  const max = Math.max(1, ...buckets.map((b) => b.succeeded + b.failed));
  const slot = WIDTH / buckets.length;
  const barWidth = Math.max(2, slot * 0.7);
  // The tallest bar stops below the "max" label in the top corner (the label would hide behind it).
  const scale = (HEIGHT - AXIS - 16) / max;
  const bars = buckets.map((b, i) => {
    const x = (i * slot + (slot - barWidth) / 2).toFixed(1);
    const ok = b.succeeded * scale;
    const bad = b.failed * scale;
    const base = HEIGHT - AXIS;
    return html`<g><title>${b.label}: ${b.succeeded} succeeded, ${b.failed} unsuccessful</title>
<rect class="bar" x="${x}" y="${(base - ok).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${ok.toFixed(1)}"></rect>
<rect class="bar fail" x="${x}" y="${(base - ok - bad).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${bad.toFixed(1)}"></rect></g>`;
  });
  const ticks = buckets
    .map((b, i) => (i % tickEvery === 0 ? html`<text x="${i === 0 ? '0' : (i * slot + slot / 2).toFixed(1)}" y="${HEIGHT - 4}" text-anchor="${i === 0 ? 'start' : 'middle'}">${tickLabel(b.label)}</text>` : null))
    .filter((t) => t !== null);
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${title}: up to ${max} per bar">
<line class="axis" x1="0" y1="${HEIGHT - AXIS}" x2="${WIDTH}" y2="${HEIGHT - AXIS}"></line>
<text x="${WIDTH - 2}" y="10" text-anchor="end">max ${max}</text>
${bars}${ticks}</svg>`;
}

/** Totals and the success rate of some buckets, e.g. "42 payments · 95.2% succeeded". */
export function summary(buckets: Bucket[]): { total: number; rate: string } {
  const succeeded = buckets.reduce((n, b) => n + b.succeeded, 0);
  const total = buckets.reduce((n, b) => n + b.succeeded + b.failed, 0);
  return { total, rate: total === 0 ? '—' : `${((succeeded / total) * 100).toFixed(1)}%` };
}
