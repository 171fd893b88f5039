import type { Gateway } from '../domain/gateway.js';
import type { GatewayDefinition } from '../gateways/kit/index.js';
import { html, type SafeHtml } from './html.js';

type Labelled = Pick<Gateway, 'token' | 'description' | 'state'> & { definition: Pick<GatewayDefinition, 'name'> };

/**
 * A gateway as people tell it apart (docs/portal.md, "Tell things apart"): the display name the
 * merchant set (`description`, Spreedly's field), with the type beside it. Without a description,
 * the type and the start of the token, so two gateways of one type still differ.
 */
export function gatewayText(gateway: Labelled): string {
  const name = gateway.description !== null && gateway.description.trim() !== '' ? gateway.description.trim() : `${gateway.definition.name} ${gateway.token.slice(0, 8)}`;
  const redacted = gateway.state === 'redacted' ? ', redacted' : '';
  return `${name} (${gateway.definition.name}${redacted})`;
}

/** The same as markup: the name, then the type (and a redacted gateway's state) in a quieter hint. */
export function gatewayLabel(gateway: Labelled): SafeHtml {
  const hasName = gateway.description !== null && gateway.description.trim() !== '';
  const name = hasName ? (gateway.description as string).trim() : gateway.definition.name;
  const type = hasName ? gateway.definition.name : gateway.token.slice(0, 8);
  return html`${name} <span class="hint">${type}</span>${gateway.state === 'redacted' ? html` <span class="badge">redacted</span>` : ''}`;
}
