import { WireErrors, WireList, WireMessage, type Wire, type WireObject } from '../http/format/wire.js';
import { html, type SafeHtml } from './html.js';

/**
 * Renders one of the API's views (which whitelist fields and mask card data) as a definition
 * list: the portal shows exactly what the API would return, never more.
 */
export function wireFacts(view: WireObject): SafeHtml {
  return html`<dl class="facts">${Object.entries(view).map(([name, value]) => html`<dt>${label(name)}</dt><dd>${wireValue(value)}</dd>`)}</dl>`;
}

function label(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function wireValue(value: Wire): SafeHtml | string {
  if (value === null || value === '') return '—';
  if (value instanceof Date) return value.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number' || typeof value === 'string') return String(value);
  if (value instanceof WireList) return value.items.length === 0 ? '—' : html`<ul>${value.items.map((item) => html`<li>${wireValue(item)}</li>`)}</ul>`;
  if (value instanceof WireErrors) return '—';
  if (value instanceof WireMessage) return value.text ?? '—';
  if (Array.isArray(value)) return html`<ul>${value.map((item) => html`<li>${wireValue(item)}</li>`)}</ul>`;
  const entries = Object.entries(value);
  return entries.length === 0 ? '—' : wireFacts(value);
}
