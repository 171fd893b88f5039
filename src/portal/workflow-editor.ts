import type { FastifyRequest } from 'fastify';
import { PAYMENT_METHOD_TYPES } from '../domain/payment-method.js';
import { CARD_TYPES } from '../vault/card-rules.js';
import { html, type SafeHtml } from './html.js';
import { csrfField } from './layout.js';
import { bodyOfDraft, emptyRule, type RuleDraft, type ShareDraft, type WorkflowDraft } from './workflow-draft.js';

/**
 * The workflow editor (docs/routing.md, "The workflow editor"): every field of a workflow as form
 * controls, gateways picked by name, one block per rule with a control for each condition Coffer
 * supports, weights for splits, backups in order and the retry mode. Plain HTML forms: it works
 * without script. The API's JSON stays available in an "Advanced" form of its own.
 */

/** A gateway as a picker shows it: the merchant's name, its type, the end of its token (two may share a name). */
export interface GatewayChoice {
  token: string;
  name: string;
  gatewayType: string;
}

export function gatewayLabel(gateway: GatewayChoice): string {
  return `${gateway.name} (${gateway.gatewayType}, …${gateway.token.slice(-6)})`;
}

const RETRY_MODES = [
  ['outage_only', 'Outage only: the next gateway after a fault before acceptance'],
  ['standard', 'Standard: also after a soft decline'],
  ['none', 'None: one attempt, backups unused'],
] as const;

const checked = (on: boolean) => (on ? html` checked` : '');

/** A gateway picker; a token the environment no longer lists (redacted) stays visible as itself. */
function gatewaySelect(id: string, name: string, label: SafeHtml, selected: string, gateways: readonly GatewayChoice[]): SafeHtml {
  const known = selected === '' || gateways.some((gateway) => gateway.token === selected);
  return html`<div class="field"><label for="${id}">${label}</label><select id="${id}" name="${name}">
<option value="">—</option>${known ? null : html`<option value="${selected}" selected>unknown gateway ${selected}</option>`}
${gateways.map((gateway) => html`<option value="${gateway.token}"${gateway.token === selected ? html` selected` : ''}>${gatewayLabel(gateway)}</option>`)}</select></div>`;
}

/** A target: up to four gateways, each with a weight (weights only matter for a split). */
function targetFields(prefix: string, context: string, shares: readonly ShareDraft[], gateways: readonly GatewayChoice[]): SafeHtml {
  return html`<fieldset class="target"><legend>${context}: where it goes</legend>
<p class="hint">One gateway, or several with weights to split the traffic (e.g. 70 and 30). Leave the weight empty for a single gateway.</p>
${shares.map((share, i) => html`<div class="pair">
${gatewaySelect(`${prefix}gw-${i}`, `${prefix.replace(/-/g, '_')}gw_${i}`, html`<span class="visually-hidden">${context}: </span>Gateway ${i + 1}`, share.gateway, gateways)}
<div class="field"><label for="${prefix}weight-${i}"><span class="visually-hidden">${context}: </span>Weight ${i + 1}</label><input id="${prefix}weight-${i}" name="${prefix.replace(/-/g, '_')}weight_${i}" type="text" inputmode="numeric" pattern="[0-9]*" maxlength="7" size="7" value="${share.weight}"></div>
</div>`)}
</fieldset>`;
}

function ruleBlock(rule: RuleDraft, index: number, total: number, gateways: readonly GatewayChoice[]): SafeHtml {
  const p = `rule-${index}-`;
  const n = (field: string) => `rule_${index}_${field}`;
  const title = rule.name === '' ? `Rule ${index + 1} (new: leave it empty to add none)` : `Rule ${index + 1}: ${rule.name}`;
  const context = `Rule ${index + 1}`;
  return html`<fieldset class="rule"><legend>${title}</legend>
<div class="pair">
<div class="field"><label for="${p}name">${context}: name</label><input id="${p}name" name="${n('name')}" type="text" maxlength="100" value="${rule.name}"></div>
<div class="field"><label for="${p}order">${context}: place <span class="hint">(1 to ${total}; first match wins)</span></label><input id="${p}order" name="${n('order')}" type="number" min="1" max="${total}" value="${rule.order === '' ? String(index + 1) : rule.order}"></div>
<div class="field"><label><input name="${n('remove')}" type="checkbox"${checked(rule.remove)}> Remove ${context.toLowerCase()}</label></div>
</div>
<p class="hint">The rule matches when every condition filled in holds; a list matches any of its values. No condition: every transaction.</p>
<fieldset><legend>${context}: card brands</legend><div class="choices">
${CARD_TYPES.map((brand) => html`<label><input name="${n(`brand_${brand}`)}" type="checkbox"${checked(rule.brands.includes(brand))}> ${brand}</label>`)}
</div></fieldset>
<div class="pair">
<div class="field"><label for="${p}currencies">${context}: currencies <span class="hint">(ISO codes: EUR, GBP)</span></label><input id="${p}currencies" name="${n('currencies')}" type="text" maxlength="200" value="${rule.currencies}"></div>
<div class="field"><label for="${p}amount-min">${context}: amount from <span class="hint">(minor units: 1000 = 10.00)</span></label><input id="${p}amount-min" name="${n('amount_min')}" type="text" inputmode="numeric" maxlength="12" value="${rule.amountMin}"></div>
<div class="field"><label for="${p}amount-max">${context}: amount up to</label><input id="${p}amount-max" name="${n('amount_max')}" type="text" inputmode="numeric" maxlength="12" value="${rule.amountMax}"></div>
</div>
<div class="pair">
<div class="field"><label for="${p}bin-prefixes">${context}: BIN prefixes <span class="hint">(1 to 8 digits each: 4111, 5500)</span></label><input id="${p}bin-prefixes" name="${n('bin_prefixes')}" type="text" inputmode="numeric" maxlength="200" autocomplete="off" value="${rule.binPrefixes}"></div>
<div class="field"><label for="${p}bin-from">${context}: BIN range from <span class="hint">(6 to 8 digits)</span></label><input id="${p}bin-from" name="${n('bin_from')}" type="text" inputmode="numeric" maxlength="8" autocomplete="off" value="${rule.binFrom}"></div>
<div class="field"><label for="${p}bin-to">${context}: BIN range to</label><input id="${p}bin-to" name="${n('bin_to')}" type="text" inputmode="numeric" maxlength="8" autocomplete="off" value="${rule.binTo}"></div>
</div>
<fieldset><legend>${context}: payment method types</legend><div class="choices">
${PAYMENT_METHOD_TYPES.map((type) => html`<label><input name="${n(`pmtype_${type}`)}" type="checkbox"${checked(rule.paymentMethodTypes.includes(type))}> ${type}</label>`)}
</div></fieldset>
<div class="pair">
<div class="field"><label for="${p}metadata-key">${context}: metadata key</label><input id="${p}metadata-key" name="${n('metadata_key')}" type="text" maxlength="50" value="${rule.metadataKey}"></div>
<div class="field"><label for="${p}metadata-value">${context}: metadata value <span class="hint">(empty: the key is enough)</span></label><input id="${p}metadata-value" name="${n('metadata_value')}" type="text" maxlength="500" value="${rule.metadataValue}"></div>
</div>
${targetFields(p, context, rule.target, gateways)}
</fieldset>`;
}

/** Where the editor posts: the create route, or the workflow's own. */
export function editorAction(envKey: string, workflowKey: string | null): string {
  return workflowKey === null ? `/portal/e/${envKey}/workflows` : `/portal/e/${envKey}/workflows/${workflowKey}`;
}

/**
 * The editor. Rules are the draft's, then one empty block to add a rule (more with "Add another
 * rule", which shows the form again with what was typed and saves nothing).
 */
export function workflowEditor(request: FastifyRequest, envKey: string, draft: WorkflowDraft, editingKey: string | null, gateways: readonly GatewayChoice[], extraRules = 1): SafeHtml {
  const rules = [...draft.rules, ...Array.from({ length: extraRules }, emptyRule)];
  const json = JSON.stringify(bodyOfDraft(draft, editingKey !== null), null, 2);
  return html`<h2>${editingKey === null ? 'Add a workflow' : 'Edit this workflow'}</h2>
<form class="stack editor" method="post" action="${editorAction(envKey, editingKey)}">${csrfField(request)}
<input type="hidden" name="rule_count" value="${String(rules.length)}">
${editingKey === null ? html`<div class="field"><label for="wf-key">Key <span class="hint">(lower-case letters, digits, _ and -; cannot be changed)</span></label><input id="wf-key" name="key" type="text" maxlength="64" value="${draft.key}" required></div>` : null}
<div class="field"><label for="wf-name">Name</label><input id="wf-name" name="name" type="text" maxlength="200" value="${draft.name}" required></div>
<h3>Rules <span class="hint">(evaluated in order; the first that matches decides)</span></h3>
${rules.length === 0 ? null : rules.map((rule, index) => ruleBlock(rule, index, rules.length, gateways))}
<button type="submit" name="action" value="add_rule" formnovalidate>Add another rule</button>
<h3>When no rule matches</h3>
${targetFields('default-', 'Default target', draft.defaultTarget, gateways)}
<fieldset><legend>Backup gateways <span class="hint">(tried in this order after the chosen one, under the retry mode)</span></legend>
<div class="pair">${draft.backups.map((token, i) => gatewaySelect(`backup-${i}`, `backup_${i}`, html`Backup ${i + 1}`, token, gateways))}</div>
</fieldset>
<div class="field"><label for="wf-retry">Retry mode</label><select id="wf-retry" name="retry_mode">${RETRY_MODES.map(([value, label]) => html`<option value="${value}"${draft.retryMode === value ? html` selected` : ''}>${label}</option>`)}</select></div>
<div class="field"><label><input name="success_rate_routing" type="checkbox"${checked(draft.successRateRouting)}> Success-rate routing within splits</label></div>
<div class="field"><label><input name="default" type="checkbox"${checked(draft.isDefault)}> Default workflow of this environment</label></div>
<button class="primary" type="submit" name="action" value="save">${editingKey === null ? 'Create workflow' : 'Save workflow'}</button>
</form>
<details class="advanced"><summary>Advanced: the workflow as JSON</summary>
<p class="hint">The API's <code>workflow</code> object (docs/routing.md). Saving it replaces what the form above shows; anything the API takes is taken here, e.g. splits over more than four gateways.</p>
<form class="stack editor" method="post" action="${editingKey === null ? `/portal/e/${envKey}/workflow-json` : `/portal/e/${envKey}/workflows/${editingKey}/json`}">${csrfField(request)}
<div class="field"><label for="wf-json">Workflow JSON</label><textarea id="wf-json" name="workflow_json" rows="16" spellcheck="false">${json}</textarea></div>
<button type="submit">${editingKey === null ? 'Create from JSON' : 'Save JSON'}</button>
</form></details>`;
}
