import type { StoredCardAccessRecord } from '../domain/card-access.js';
import { html, type SafeHtml } from './html.js';
import { when } from './layout.js';

const WHY: Record<string, string> = {
  purchase: 'sent to a gateway for a purchase',
  authorize: 'sent to a gateway for an authorization',
  verify: 'sent to a gateway for a verification',
  store: 'sent to a gateway to store it there',
  general_credit: 'sent to a gateway for a general credit',
  capture: 'opened to scrub the transcript of a capture',
  void: 'opened to scrub the transcript of a void',
  credit: 'opened to scrub the transcript of a credit',
  complete: 'opened to scrub the transcript of a 3-D Secure completion',
  deliver: 'delivered to a receiver',
  export: 'exported to an SFTP receiver',
};

/** Who opened the payment method's card data and why, newest first (docs/audit.md, docs/portal.md). */
export function accessLogSection(environmentKey: string, records: readonly StoredCardAccessRecord[]): SafeHtml {
  const who = (record: StoredCardAccessRecord) =>
    record.actorType === 'access_secret' ? html`access secret <code>${record.actor}</code>` : record.actorType === 'user' ? html`${record.actor}` : html`Coffer <span class="badge">system</span>`;
  const why = (record: StoredCardAccessRecord) => (record.objectType === 'payment_method_export' ? 'written into a vault export file' : (WHY[record.operation] ?? record.operation));
  const object = (record: StoredCardAccessRecord) =>
    record.objectId === null
      ? '—'
      : record.objectType === 'payment_method_export'
        ? html`<a href="/portal/e/${environmentKey}/exports"><code>${record.objectId}</code></a>`
        : html`<a href="/portal/e/${environmentKey}/transactions/${record.objectId}"><code>${record.objectId}</code></a>`;
  return html`<h2 id="access-log">Card data access</h2>
<p class="hint">Every time this card's number or CVV was opened: by whom, and why. Recorded in the tamper-evident audit trail.</p>
<table><caption class="visually-hidden">Card data access, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Why</th><th scope="col">Transaction or export</th><th scope="col">Request id</th></tr></thead>
<tbody>${
    records.length === 0
      ? html`<tr><td colspan="5">Nobody has opened this card's data.</td></tr>`
      : records.map(
          (record) => html`<tr><td class="nowrap">${when(record.createdAt)}</td><td>${who(record)}</td><td>${why(record)}</td><td>${object(record)}</td><td><code>${record.requestId ?? '—'}</code></td></tr>`,
        )
  }</tbody></table>`;
}
