import { describe, expect, it } from 'vitest';
import type { WorkflowDefinition } from '../../src/domain/workflow.js';
import { gatewayPlaces, workflowErrors } from '../../src/services/routing/workflow-validation.js';

/*
 * The workflow checks name the place of a problem in the body, never the value sent there
 * (docs/security.md, "Errors"): a card number pasted into a gateway token, a rule name or a
 * list of brands must not come back in the 422.
 */

const PAN = '4929420573595709';

function definition(change: Partial<WorkflowDefinition>): WorkflowDefinition {
  return { name: 'Checkout', rules: [], defaultTarget: { gateway_token: 'GW_A' }, backupGatewayTokens: [], retryMode: 'none', successRateRouting: false, ...change };
}

describe('workflow error messages say where, not what', () => {
  it('an unknown list entry is named by its index, with the known values when there is a list of them', () => {
    const errors = workflowErrors(definition({ rules: [{ name: 'r', condition: { card_brands: ['visa', PAN, 'nope'], payment_method_types: [PAN] }, target: { gateway_token: 'GW_A' } }] }));
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringMatching(/^rules\[0\]\.condition\.card_brands has an unknown card brand at index 1, 2 \(known: visa, .*\)$/),
      expect.stringMatching(/^rules\[0\]\.condition\.payment_method_types has an unknown payment method type at index 0 \(known: credit_card, .*\)$/),
    ]);
    expect(JSON.stringify(errors)).not.toContain(PAN);
  });

  it('a repeated rule name and a repeated split gateway point to the earlier place', () => {
    const errors = workflowErrors(
      definition({
        rules: [
          { name: PAN, condition: { currencies: ['EUR'] }, target: { gateway_token: 'GW_A' } },
          { name: PAN, condition: { currencies: ['USD'] }, target: { split: [{ gateway_token: PAN, weight: 1 }, { gateway_token: PAN, weight: 2 }] } },
        ],
      }),
    );
    expect(errors).toEqual([
      { key: 'errors.invalid', attribute: 'rules[1].name', message: 'rules[1].name is already the name of rules[0]' },
      { key: 'errors.invalid', attribute: 'rules[1].target.split', message: 'rules[1].target.split[1] names the same gateway as rules[1].target.split[0]' },
    ]);
  });

  it('each gateway is checked once, at the first place that names it', () => {
    const places = gatewayPlaces(
      definition({
        rules: [{ name: 'r', condition: {}, target: { split: [{ gateway_token: 'GW_B', weight: 1 }, { gateway_token: 'GW_A', weight: 1 }] } }],
        defaultTarget: { gateway_token: 'GW_A' },
        backupGatewayTokens: ['GW_C', 'GW_B'],
      }),
    );
    expect(places).toEqual([
      { place: 'rules[0].target.split[0].gateway_token', token: 'GW_B' },
      { place: 'rules[0].target.split[1].gateway_token', token: 'GW_A' },
      { place: 'backup_gateway_tokens[0]', token: 'GW_C' },
    ]);
  });
});
