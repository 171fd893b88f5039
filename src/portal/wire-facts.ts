import { WireErrors, WireList, WireMessage, WireTime, type Wire, type WireObject } from '../http/format/wire.js';
import { html, type SafeHtml } from './html.js';

/**
 * Renders one of the API's views (which whitelist fields and mask card data) for people: the
 * portal shows exactly what the API would return, never more. Empty fields are left out; nested
 * objects (a transaction's response, its payment method) get a section each.
 */
export function wireSections(view: WireObject, headingLevel: 2 | 3 = 2): SafeHtml {
  const flat: Array<[string, Wire]> = [];
  const nested: Array<[string, WireObject]> = [];
  for (const [name, value] of Object.entries(view)) {
    if (isEmpty(value)) continue;
    if (isObject(value)) nested.push([name, value]);
    else flat.push([name, value]);
  }
  const heading = (text: string) => (headingLevel === 2 ? html`<h2>${text}</h2>` : html`<h3>${text}</h3>`);
  return html`<dl class="facts">${flat.map(([name, value]) => html`<dt>${label(name)}</dt><dd>${wireValue(value)}</dd>`)}</dl>
${nested.map(([name, value]) => html`<section>${heading(label(name))}${wireSections(value, 3)}</section>`)}`;
}

function isObject(value: Wire): value is WireObject {
  return value !== null && typeof value === 'object' && !(value instanceof Date) && !(value instanceof WireTime) && !(value instanceof WireList) && !(value instanceof WireMessage) && !(value instanceof WireErrors) && !Array.isArray(value);
}

function isEmpty(value: Wire): boolean {
  if (value === null || value === '') return true;
  if (value instanceof WireList) return value.items.length === 0;
  if (value instanceof WireErrors) return value.entries.length === 0;
  if (value instanceof WireMessage) return value.text === null;
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.values(value).every(isEmpty);
  return false;
}

function label(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function wireValue(value: Wire): SafeHtml | string {
  if (value === null || value === '') return '—';
  if (value instanceof Date || value instanceof WireTime) return portalTime(value instanceof Date ? value : value.toDate());
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number' || typeof value === 'string') return String(value);
  if (value instanceof WireList) return html`<ul>${value.items.map((item) => html`<li>${wireValue(item)}</li>`)}</ul>`;
  if (value instanceof WireErrors) return html`<ul>${value.entries.map((e) => html`<li>${e.message}</li>`)}</ul>`;
  if (value instanceof WireMessage) return value.text ?? '—';
  if (Array.isArray(value)) return html`<ul>${value.map((item) => html`<li>${wireValue(item)}</li>`)}</ul>`;
  return html`<dl class="facts">${Object.entries(value).filter(([, v]) => !isEmpty(v)).map(([name, v]) => html`<dt>${label(name)}</dt><dd>${wireValue(v)}</dd>`)}</dl>`;
}

function portalTime(value: Date): string {
  return value.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
}
