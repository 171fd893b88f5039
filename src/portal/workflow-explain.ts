import type { FastifyRequest } from 'fastify';
import { AppError, type ErrorEntry } from '../domain/errors.js';
import { PAYMENT_METHOD_TYPES } from '../domain/payment-method.js';
import { containsCardLike } from '../domain/scrubbing/card-like.js';
import type { Workflow } from '../domain/workflow.js';
import type { Explanation } from '../services/routing/routed-transactions.js';
import type { TransactionFacts } from '../services/routing/workflow-router.js';
import { CARD_TYPES } from '../vault/card-rules.js';
import { html, type SafeHtml } from './html.js';
import { csrfField } from './layout.js';
import { binField, conditionText } from './workflow-draft.js';
import { gatewayLabel, type GatewayChoice } from './workflow-editor.js';

/**
 * Explain from the editor (docs/routing.md, "The workflow editor"): a sample transaction, either a
 * stored payment method's token or the facts the rules look at typed in (brand, BIN of at most
 * eight digits, type, metadata), with an amount and a currency, and the routing service's own
 * explain run on it. Nothing is called or stored. No field takes a card number, and what was typed
 * is shown again only when it cannot be one.
 */

/** The sample as typed; every value is text. */
export interface ExplainSample {
  paymentMethodToken: string;
  cardBrand: string;
  bin: string;
  paymentMethodType: string;
  metadataKey: string;
  metadataValue: string;
  amount: string;
  currency: string;
}

export const EMPTY_SAMPLE: ExplainSample = { paymentMethodToken: '', cardBrand: '', bin: '', paymentMethodType: '', metadataKey: '', metadataValue: '', amount: '1000', currency: 'USD' };

/** Text that may be written back into the page: nothing that reads as a card number. */
function shown(value: string): string {
  return containsCardLike(value) || /\d{12,}/.test(value) ? '' : value;
}

export function sampleOf(form: Record<string, string>): ExplainSample {
  const field = (name: string) => (form[name] ?? '').trim();
  return {
    paymentMethodToken: field('sample_token'),
    cardBrand: field('sample_brand'),
    bin: field('sample_bin'),
    paymentMethodType: field('sample_type'),
    metadataKey: field('sample_metadata_key'),
    metadataValue: field('sample_metadata_value'),
    amount: field('sample_amount'),
    currency: field('sample_currency'),
  };
}

/** The sample as it may be shown again: a field that could hold a card number is emptied. */
export function shownSample(sample: ExplainSample): ExplainSample {
  return {
    paymentMethodToken: /^[A-Za-z0-9]{1,64}$/.test(sample.paymentMethodToken) ? shown(sample.paymentMethodToken) : '',
    cardBrand: shown(sample.cardBrand),
    bin: binField(sample.bin),
    paymentMethodType: shown(sample.paymentMethodType),
    metadataKey: shown(sample.metadataKey),
    metadataValue: shown(sample.metadataValue),
    amount: shown(sample.amount),
    currency: shown(sample.currency),
  };
}

function invalid(attribute: string, message: string): ErrorEntry {
  return { key: 'errors.invalid', attribute, message };
}

/** What to run: a stored method's token (the API's explain), or facts. Errors name the field, never echo it. */
export function explainRequest(sample: ExplainSample): { token: string; amount: number | null; currency: string | null } | { facts: TransactionFacts } {
  const errors: ErrorEntry[] = [];
  if (sample.amount !== '' && !/^\d{1,12}$/.test(sample.amount)) errors.push(invalid('amount', 'Amount must be a whole number of minor units (1000 = 10.00).'));
  if (sample.currency !== '' && !/^[A-Za-z]{3}$/.test(sample.currency)) errors.push(invalid('currency', 'Currency must be a three-letter ISO code.'));
  if (sample.bin !== '' && !/^\d{1,8}$/.test(sample.bin)) errors.push(invalid('bin', 'The BIN is the first 6 to 8 digits of a card, never the whole number.'));
  if (sample.paymentMethodToken !== '' && (!/^[A-Za-z0-9]{1,64}$/.test(sample.paymentMethodToken) || shown(sample.paymentMethodToken) === '')) {
    errors.push(invalid('payment_method_token', 'That is not a payment method token: a token has only letters and digits, and is never a card number.'));
  }
  if (sample.cardBrand !== '' && !(CARD_TYPES as readonly string[]).includes(sample.cardBrand)) errors.push(invalid('card_brand', 'Choose a card brand from the list.'));
  if (sample.paymentMethodType !== '' && !(PAYMENT_METHOD_TYPES as readonly string[]).includes(sample.paymentMethodType)) errors.push(invalid('payment_method_type', 'Choose a payment method type from the list.'));
  if (errors.length > 0) throw new AppError(errors);
  const amount = sample.amount === '' ? null : Number(sample.amount);
  const currency = sample.currency === '' ? null : sample.currency.toUpperCase();
  if (sample.paymentMethodToken !== '') return { token: sample.paymentMethodToken, amount, currency };
  const type = sample.paymentMethodType === '' ? (sample.cardBrand !== '' || sample.bin !== '' ? 'credit_card' : null) : sample.paymentMethodType;
  return {
    facts: {
      cardBrand: sample.cardBrand === '' ? null : sample.cardBrand,
      bin: sample.bin === '' ? null : sample.bin,
      currency,
      amount,
      paymentMethodType: type,
      metadata: sample.metadataKey === '' ? {} : { [sample.metadataKey]: sample.metadataValue },
    },
  };
}

const selectedIf = (on: boolean) => (on ? html` selected` : '');

export function explainForm(request: FastifyRequest, envKey: string, workflowKey: string, sample: ExplainSample): SafeHtml {
  const s = shownSample(sample);
  return html`<h2 id="explain">Try it: explain a sample transaction</h2>
<p class="hint">Runs the saved workflow's decision on the sample (the API's <code>POST /v1/workflows/${workflowKey}/explain</code>): nothing is charged or stored. Give a stored payment method's token, or describe the card.</p>
<form class="stack editor" method="post" action="/portal/e/${envKey}/workflows/${workflowKey}/explain#explain-result">${csrfField(request)}
<div class="pair">
<div class="field"><label for="sample-amount">Sample amount <span class="hint">(minor units)</span></label><input id="sample-amount" name="sample_amount" type="text" inputmode="numeric" maxlength="12" value="${s.amount}"></div>
<div class="field"><label for="sample-currency">Sample currency</label><input id="sample-currency" name="sample_currency" type="text" maxlength="3" size="4" value="${s.currency}"></div>
</div>
<div class="field"><label for="sample-token">Payment method token <span class="hint">(optional; then the card's own brand, BIN, type and metadata are used)</span></label><input id="sample-token" name="sample_token" type="text" maxlength="64" autocomplete="off" value="${s.paymentMethodToken}"></div>
<fieldset><legend>Or describe the card</legend><div class="pair">
<div class="field"><label for="sample-brand">Sample card brand</label><select id="sample-brand" name="sample_brand"><option value="">—</option>${CARD_TYPES.map((brand) => html`<option value="${brand}"${selectedIf(s.cardBrand === brand)}>${brand}</option>`)}</select></div>
<div class="field"><label for="sample-bin">Sample BIN <span class="hint">(first 6 to 8 digits only)</span></label><input id="sample-bin" name="sample_bin" type="text" inputmode="numeric" maxlength="8" autocomplete="off" value="${s.bin}"></div>
<div class="field"><label for="sample-type">Sample payment method type</label><select id="sample-type" name="sample_type"><option value="">—</option>${PAYMENT_METHOD_TYPES.map((type) => html`<option value="${type}"${selectedIf(s.paymentMethodType === type)}>${type}</option>`)}</select></div>
<div class="field"><label for="sample-metadata-key">Sample metadata key</label><input id="sample-metadata-key" name="sample_metadata_key" type="text" maxlength="50" value="${s.metadataKey}"></div>
<div class="field"><label for="sample-metadata-value">Sample metadata value</label><input id="sample-metadata-value" name="sample_metadata_value" type="text" maxlength="500" value="${s.metadataValue}"></div>
</div></fieldset>
<button class="primary" type="submit">Explain</button>
</form>`;
}

function gatewayName(token: string, gateways: readonly GatewayChoice[]): string {
  const gateway = gateways.find((g) => g.token === token);
  return gateway === undefined ? token : gatewayLabel(gateway);
}

/** The decision, the chain it makes, the chances of a split, and every rule's checks. */
export function explanationSection(explanation: Explanation, workflow: Workflow, gateways: readonly GatewayChoice[]): SafeHtml {
  const { decision, facts } = explanation;
  const [first, ...backups] = decision.gatewayTokens;
  const ruleWords = decision.ruleMatched === null ? 'the default target (no rule matched)' : `rule ${String((decision.ruleIndex ?? 0) + 1)}, “${decision.ruleMatched}”`;
  return html`<section class="card" id="explain-result" aria-labelledby="explain-result-title">
<h3 id="explain-result-title">Result: ${gatewayName(decision.gatewayToken, gateways)}</h3>
<p role="status">Chosen by ${ruleWords}. ${decision.method === 'single' ? 'A single gateway: always this one.' : `A split (${decision.method}): this draw is one sample; the chances are below.`}</p>
<dl class="facts decision">
<dt>First attempt</dt><dd>${first === undefined ? '—' : gatewayName(first, gateways)}</dd>
<dt>Then, under retry mode ${workflow.retryMode}</dt><dd>${backups.length === 0 ? 'no backup' : backups.map((token, i) => html`${i === 0 ? '' : ' → '}${gatewayName(token, gateways)}`)}</dd>
<dt>Why</dt><dd>${decision.reason}</dd>
<dt>What the rules saw</dt><dd>brand ${facts.cardBrand ?? '—'}, BIN ${facts.bin ?? '—'}, type ${facts.paymentMethodType ?? '—'}, amount ${facts.amount === null ? '—' : String(facts.amount)}, currency ${facts.currency ?? '—'}${Object.keys(facts.metadata).length === 0 ? '' : `, metadata ${Object.entries(facts.metadata).map(([k, v]) => `${k}=${v}`).join(', ')}`}</dd>
</dl>
${decision.shares.length === 0 ? null : html`<div class="figure-scroll" role="region" tabindex="0" aria-label="Chances of the split"><table><caption>Chances of the split</caption><thead><tr><th scope="col">Gateway</th><th scope="col" class="num">Weight</th><th scope="col" class="num">Chance</th></tr></thead>
<tbody>${decision.shares.map((share) => html`<tr><td>${gatewayName(share.gateway_token, gateways)}</td><td class="num">${share.weight}</td><td class="num">${(share.probability * 100).toFixed(1)}%</td></tr>`)}</tbody></table></div>`}
<div class="figure-scroll" role="region" tabindex="0" aria-label="Rule by rule"><table><caption>Rule by rule</caption><thead><tr><th scope="col">#</th><th scope="col">Rule</th><th scope="col">Condition</th><th scope="col">Outcome</th><th scope="col">Checks</th></tr></thead>
<tbody>${decision.evaluations.length === 0 ? html`<tr><td colspan="5">The workflow has no rules.</td></tr>` : decision.evaluations.map((evaluation) => {
    const rule = workflow.rules[evaluation.index];
    return html`<tr><td>${evaluation.index + 1}</td><td>${evaluation.name}</td><td>${rule === undefined ? '' : conditionText(rule.condition)}</td>
<td>${!evaluation.evaluated ? 'not looked at' : evaluation.matched ? html`<span class="badge ok">matched</span>` : html`<span class="badge">no match</span>`}</td>
<td>${evaluation.checks.length === 0 ? (evaluation.evaluated ? 'no condition' : '') : html`<ul class="checks">${evaluation.checks.map((c) => html`<li>${c.passed ? '✓' : '✗'} ${c.criterion}: wanted ${c.expected}, got ${c.actual ?? 'nothing'}</li>`)}</ul>`}</td></tr>`;
  })}</tbody></table></div>
</section>`;
}
