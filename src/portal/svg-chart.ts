import { html, type SafeHtml } from './html.js';

/**
 * Charts drawn on the server as inline SVG: no script, no external service. Every colour and
 * size is a presentation attribute (the CSP has no 'unsafe-inline' for styles). Each chart is drawn
 * at its natural size (text 13 px, never scaled down) inside a region that scrolls sideways on a
 * narrow screen, has a role="img" label, a <title> on every bar or point (the hover), and its
 * numbers written on it or in the table that follows it.
 */

const FONT = 13;
const INK = '#1b1f24';
const MUTED = '#57606a';
const GRID = '#d0d7de';
export const COLOURS = { approved: '#0a5bd3', declined: '#cf222e', rate: '#116329', p50: '#0a5bd3', p95: '#9a6700', neutral: '#0a5bd3' } as const;

/** The smallest "nice" whole step (1, 2, 3 or 5 × 10^k) at or above `value`: axis ticks stay whole numbers. */
export function niceStep(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 3, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** Wide for a screen with room (600 px), narrow for a phone (280 px); text is 13 px in both. */
export type ChartSize = 'wide' | 'narrow';

/**
 * Both sizes of a chart; the stylesheet shows the one that fits its box (a container query on
 * `.figure-box`), so text is never scaled below its size. The hidden one is `display:none`, which
 * screen readers skip too.
 */
export function responsive(draw: (size: ChartSize) => SafeHtml): SafeHtml {
  return html`<div class="figure-box"><div class="figure-wide">${draw('wide')}</div><div class="figure-narrow">${draw('narrow')}</div></div>`;
}

function fixed(n: number): string {
  return n.toFixed(1);
}

function text(x: number, y: number, content: string, options: { anchor?: 'start' | 'middle' | 'end'; fill?: string; weight?: 'bold' } = {}): SafeHtml {
  return html`<text x="${fixed(x)}" y="${fixed(y)}" font-size="${FONT}" fill="${options.fill ?? MUTED}" text-anchor="${options.anchor ?? 'start'}"${options.weight === undefined ? '' : html` font-weight="bold"`}>${content}</text>`;
}

function frame(width: number, height: number, label: string, body: SafeHtml[]): SafeHtml {
  return html`<div class="figure-scroll" role="region" tabindex="0" aria-label="${label}">
<svg class="figure" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${label}" font-family="system-ui, sans-serif">
${body}</svg></div>`;
}

/** Colour keys in a row, or one under the other (`stacked`, for a narrow chart). */
function legend(x: number, y: number, items: ReadonlyArray<{ colour: string; label: string; line?: boolean }>, stacked = false): SafeHtml[] {
  let at = x;
  let row = y;
  return items.map((item) => {
    const mark = item.line === true
      ? html`<line x1="${fixed(at)}" y1="${fixed(row - 4)}" x2="${fixed(at + 14)}" y2="${fixed(row - 4)}" stroke="${item.colour}" stroke-width="3"></line>`
      : html`<rect x="${fixed(at)}" y="${fixed(row - 11)}" width="12" height="12" fill="${item.colour}"></rect>`;
    const out = html`${mark}${text(at + 18, row, item.label, { fill: INK })}`;
    if (stacked) row += 18;
    else at += 30 + item.label.length * 7.2;
    return out;
  });
}

/** One bucket of the volume chart. */
export interface VolumeBar {
  /** Axis text under the bar. */
  tick: string;
  /** The hover: the bucket's time span in words. */
  span: string;
  payments: number;
  approved: number;
}

/**
 * Payments per time bucket as stacked bars (approved below, not approved above) on a count axis,
 * and the approval rate as a line on a 0–100 % axis on the right.
 */
export function volumeChart(label: string, bars: readonly VolumeBar[], axisNote: string, tickEvery: number, size: ChartSize): SafeHtml {
  const narrow = size === 'narrow';
  const width = narrow ? 280 : 600;
  const height = 260;
  const left = narrow ? 36 : 48;
  const right = narrow ? 42 : 52;
  const every = narrow ? tickEvery * 2 : tickEvery;
  const top = 34;
  const bottom = 44;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const max = 4 * niceStep(Math.max(1, ...bars.map((b) => b.payments)) / 4);
  const slot = plotW / Math.max(1, bars.length);
  const barW = Math.max(3, slot * 0.7);
  const y = (count: number) => top + plotH - (count / max) * plotH;
  const yRate = (rate: number) => top + plotH - rate * plotH;
  const grid = [0, 0.25, 0.5, 0.75, 1].map((share) => {
    const at = top + plotH - share * plotH;
    const count = max * share;
    return html`<line x1="${left}" y1="${fixed(at)}" x2="${width - right}" y2="${fixed(at)}" stroke="${GRID}" stroke-width="1"></line>
${text(left - 6, at + 4, String(count), { anchor: 'end' })}${text(width - right + 6, at + 4, `${Math.round(share * 100)}%`)}`;
  });
  const columns = bars.map((bar, i) => {
    const x = left + i * slot + (slot - barW) / 2;
    const notApproved = bar.payments - bar.approved;
    const rate = bar.payments === 0 ? '—' : `${((bar.approved / bar.payments) * 100).toFixed(1)}%`;
    return html`<g><title>${bar.span}: ${bar.payments} payments, ${bar.approved} approved, ${notApproved} not approved (approval ${rate})</title>
<rect x="${fixed(x)}" y="${fixed(top)}" width="${fixed(barW)}" height="${fixed(plotH)}" fill="transparent"></rect>
<rect x="${fixed(x)}" y="${fixed(y(bar.approved))}" width="${fixed(barW)}" height="${fixed(plotH - (y(bar.approved) - top))}" fill="${COLOURS.approved}"></rect>
<rect x="${fixed(x)}" y="${fixed(y(bar.payments))}" width="${fixed(barW)}" height="${fixed(y(bar.approved) - y(bar.payments))}" fill="${COLOURS.declined}"></rect>
${i % every === 0 ? text(x + barW / 2, height - bottom + 18, bar.tick, { anchor: 'middle' }) : null}</g>`;
  });
  const points = bars.map((bar, i) => (bar.payments === 0 ? null : { x: left + i * slot + slot / 2, y: yRate(bar.approved / bar.payments), bar }));
  const line = points
    .filter((p) => p !== null)
    .map((p, i) => `${i === 0 ? 'M' : 'L'}${fixed(p.x)} ${fixed(p.y)}`)
    .join(' ');
  const dots = points.map((p) =>
    p === null ? null : html`<circle cx="${fixed(p.x)}" cy="${fixed(p.y)}" r="3.5" fill="${COLOURS.rate}"><title>${p.bar.span}: approval ${((p.bar.approved / p.bar.payments) * 100).toFixed(1)}%</title></circle>`,
  );
  return frame(width, height, label, [
    ...legend(narrow ? 4 : left, 16, [
      { colour: COLOURS.approved, label: 'approved' },
      { colour: COLOURS.declined, label: 'not approved' },
      { colour: COLOURS.rate, label: narrow ? 'rate %' : 'approval rate (right axis)', line: true },
    ]),
    ...grid,
    html`<line x1="${left}" y1="${fixed(top + plotH)}" x2="${width - right}" y2="${fixed(top + plotH)}" stroke="${MUTED}" stroke-width="1"></line>`,
    ...columns,
    line === '' ? html`` : html`<path d="${line}" fill="none" stroke="${COLOURS.rate}" stroke-width="2.5"></path>`,
    ...dots.filter((dot) => dot !== null),
    text(narrow ? 4 : left, height - 6, narrow ? axisNote : `payments per bar (left) · ${axisNote}`),
  ]);
}

/** One row of a horizontal bar chart: a name and one or two values. */
export interface ChartBar {
  name: string;
  values: number[];
  /** The numbers written at the end of the bars (e.g. "≤ 300 ms"), one per value. */
  valueTexts: string[];
}

/**
 * Horizontal bars, one row per name (ranked by the caller), one bar per series, the value written
 * at each bar's end, on an axis in `unit`.
 */
export function horizontalBars(label: string, rows: readonly ChartBar[], series: ReadonlyArray<{ name: string; colour: string }>, unit: string, size: ChartSize): SafeHtml {
  const narrow = size === 'narrow';
  const width = narrow ? 280 : 600;
  const nameW = narrow ? 104 : 190;
  const valueW = narrow ? 72 : 90;
  const nameChars = narrow ? 13 : 26;
  const barH = 16;
  const gap = 4;
  const rowH = series.length * (barH + gap) + 10;
  const top = series.length > 1 ? (narrow ? 12 + 18 * series.length : 30) : 8;
  const axisH = 30;
  const height = top + rows.length * rowH + axisH;
  const plotW = width - nameW - valueW;
  const finite = rows.flatMap((row) => row.values.filter((v) => Number.isFinite(v)));
  const max = 2 * niceStep(Math.max(1, ...finite) / 2);
  const body: SafeHtml[] = series.length > 1 ? legend(narrow ? 4 : nameW, 18, series.map((s) => ({ colour: s.colour, label: s.name })), narrow) : [];
  rows.forEach((row, r) => {
    const y0 = top + r * rowH;
    const name = row.name.length > nameChars ? `${row.name.slice(0, nameChars - 1)}…` : row.name;
    body.push(html`<g><title>${row.name}: ${row.valueTexts.map((t, i) => `${series[i]?.name ?? ''} ${t}`.trim()).join(', ')}</title>
${text(nameW - 8, y0 + (series.length * (barH + gap)) / 2 + 4, name, { anchor: 'end', fill: INK })}
${row.values.map((value, i) => {
  const w = Number.isFinite(value) ? (value / max) * plotW : plotW;
  const y = y0 + i * (barH + gap);
  return html`<rect x="${nameW}" y="${fixed(y)}" width="${fixed(Math.max(value > 0 ? 2 : 0, w))}" height="${barH}" fill="${series[i]?.colour ?? COLOURS.neutral}"></rect>${text(nameW + Math.max(2, w) + 6, y + barH - 3, row.valueTexts[i] ?? '', { fill: INK })}`;
})}</g>`);
  });
  const axisY = top + rows.length * rowH;
  body.push(html`<line x1="${nameW}" y1="${fixed(axisY)}" x2="${nameW + plotW}" y2="${fixed(axisY)}" stroke="${MUTED}" stroke-width="1"></line>`);
  for (const share of [0, 0.5, 1]) {
    const value = max * share;
    body.push(text(nameW + share * plotW, axisY + 16, String(value), { anchor: share === 0 ? 'start' : share === 1 ? 'end' : 'middle' }));
  }
  body.push(text(nameW + plotW, axisY + 28, unit, { anchor: 'end' }));
  return frame(width, height + 6, label, body);
}
