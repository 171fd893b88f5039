import { describe, expect, it } from 'vitest';
import { drawWeighted } from '../../src/services/routing/split-draw.js';
import { SuccessRates } from '../../src/services/routing/success-rates.js';
import type { Workflow } from '../../src/domain/workflow.js';
import { EXPLORATION_PER_MILLE, routeByWorkflow, type TransactionFacts } from '../../src/services/routing/workflow-router.js';
import { workflowErrors } from '../../src/services/routing/workflow-validation.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { seededRandomInt } from '../helpers/seeded-random.js';

/*
 * The router alone (docs/routing.md): rules match as written, a split follows its weights over 1,000
 * draws, success-rate routing prefers the better gateway without starving the other. The draws
 * come from a seeded generator, so the counts are the same on every run. The e2e suite checks the
 * same decisions through the API.
 */

function workflow(overrides: Partial<Workflow> = {}): Workflow {
  return {
    key: 'main',
    name: 'Main',
    rules: [
      { name: 'amex', condition: { card_brands: ['american_express'] }, target: { gateway_token: 'GA' } },
      { name: 'big-eur', condition: { currencies: ['EUR'], amount_min: 10_000 }, target: { gateway_token: 'GB' } },
      { name: 'small', condition: { amount_max: 99 }, target: { gateway_token: 'GC' } },
      { name: 'bin', condition: { bin_range: { from: '510000', to: '519999' } }, target: { gateway_token: 'GB' } },
      { name: 'gold', condition: { metadata: { key: 'tier', value: 'gold' } }, target: { gateway_token: 'GC' } },
      { name: 'banks', condition: { payment_method_types: ['bank_account'] }, target: { gateway_token: 'GA' } },
      { name: 'prefix', condition: { bin_prefixes: ['3569'] }, target: { gateway_token: 'GA' } },
    ],
    defaultTarget: { split: [{ gateway_token: 'GA', weight: 70 }, { gateway_token: 'GB', weight: 30 }] },
    backupGatewayTokens: ['GC', 'GA'],
    retryMode: 'outage_only',
    successRateRouting: false,
    isDefault: false,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

const VISA_USD: TransactionFacts = { cardBrand: 'visa', bin: '41111111', currency: 'USD', amount: 1000, paymentMethodType: 'credit_card', metadata: {} };
const options = { random: seededRandomInt(18), successRates: null };

describe('workflow rules', () => {
  it('take the first rule whose every criterion holds, and say why', () => {
    const amex = routeByWorkflow(workflow(), { ...VISA_USD, cardBrand: 'american_express', bin: '37828224' }, options);
    expect(amex).toMatchObject({ ruleMatched: 'amex', ruleIndex: 0, gatewayToken: 'GA', method: 'single', gatewayTokens: ['GA', 'GC'] });
    expect(amex.reason).toContain('"amex" matched');
    expect(amex.evaluations[1]).toMatchObject({ evaluated: false });

    const bigEur = routeByWorkflow(workflow(), { ...VISA_USD, currency: 'eur', amount: 10_000 }, options);
    expect(bigEur).toMatchObject({ ruleMatched: 'big-eur', gatewayToken: 'GB', gatewayTokens: ['GB', 'GC', 'GA'] });
    // One criterion of two failing is no match.
    const smallEur = routeByWorkflow(workflow(), { ...VISA_USD, currency: 'EUR', amount: 9_999 }, options);
    expect(smallEur.evaluations[1]?.checks).toEqual([
      { criterion: 'currency', expected: 'EUR', actual: 'EUR', passed: true },
      { criterion: 'amount_min', expected: '>= 10000', actual: '9999', passed: false },
    ]);
    expect(routeByWorkflow(workflow(), { ...VISA_USD, amount: 99 }, options).ruleMatched).toBe('small');
    expect(routeByWorkflow(workflow(), { ...VISA_USD, cardBrand: 'master', bin: '51051051' }, options).ruleMatched).toBe('bin');
    expect(routeByWorkflow(workflow(), { ...VISA_USD, cardBrand: 'master', bin: '52000000' }, options).ruleMatched).toBeNull();
    expect(routeByWorkflow(workflow(), { ...VISA_USD, metadata: { tier: 'gold' } }, options).ruleMatched).toBe('gold');
    expect(routeByWorkflow(workflow(), { ...VISA_USD, metadata: { tier: 'silver' } }, options).ruleMatched).toBeNull();
    expect(routeByWorkflow(workflow(), { ...VISA_USD, cardBrand: null, bin: null, paymentMethodType: 'bank_account' }, options).ruleMatched).toBe('banks');
    expect(routeByWorkflow(workflow(), { ...VISA_USD, cardBrand: 'jcb', bin: '35690000' }, options).ruleMatched).toBe('prefix');
  });

  it('fall back to the default target, a split, when nothing matches', () => {
    const decision = routeByWorkflow(workflow(), VISA_USD, options);
    expect(decision.ruleMatched).toBeNull();
    expect(decision.method).toBe('weighted');
    expect(decision.shares).toEqual([
      { gateway_token: 'GA', weight: 70, probability: 0.7 },
      { gateway_token: 'GB', weight: 30, probability: 0.3 },
    ]);
    expect(decision.reason).toMatch(/^no rule matched, so the default target applied → split 70\/30, drew G[AB]/);
  });
});

describe('a weighted split', () => {
  it('is within 5% of its weights over 1,000 draws (seeded)', () => {
    const seeded = { random: seededRandomInt(70_30), successRates: null };
    const counts = new Map<string, number>();
    for (let i = 0; i < 1000; i += 1) {
      const decision = routeByWorkflow(workflow(), VISA_USD, seeded);
      counts.set(decision.gatewayToken, (counts.get(decision.gatewayToken) ?? 0) + 1);
    }
    expect(Math.abs((counts.get('GA') ?? 0) - 700)).toBeLessThanOrEqual(50);
    expect(Math.abs((counts.get('GB') ?? 0) - 300)).toBeLessThanOrEqual(50);
  });

  it('maps each ticket of the total weight to exactly one share', () => {
    const shares = [{ gateway_token: 'A', weight: 2 }, { gateway_token: 'B', weight: 1 }];
    expect([0, 1, 2].map((ticket) => drawWeighted(shares, () => ticket).gateway_token)).toEqual(['A', 'A', 'B']);
  });
});

describe('success-rate routing', () => {
  it('prefers the gateway with the better recent rate for the brand, and still sends the other about 10% × its weight', () => {
    const clock = new ManualClock();
    const rates = new SuccessRates(clock);
    for (let i = 0; i < 50; i += 1) {
      rates.record('GA', 'visa', i % 2 === 0); // 50%
      rates.record('GB', 'visa', i % 10 !== 0); // 90%
    }
    const routed = workflow({ successRateRouting: true });
    const counts = new Map<string, number>();
    const random = seededRandomInt(93);
    for (let i = 0; i < 1000; i += 1) {
      const decision = routeByWorkflow(routed, VISA_USD, { random, successRates: rates });
      counts.set(decision.gatewayToken, (counts.get(decision.gatewayToken) ?? 0) + 1);
    }
    // GB: 0.9 + 0.1 × 0.3 = 93%; GA only through exploration: 0.1 × 0.7 = 7% (never 0).
    expect(counts.get('GA') ?? 0).toBeGreaterThan(30);
    expect(counts.get('GA') ?? 0).toBeLessThan(120);
    const decision = routeByWorkflow(routed, VISA_USD, { random: () => 999, successRates: rates });
    expect(decision.method).toBe('success_rate');
    expect(decision.gatewayToken).toBe('GB');
    expect(decision.shares.map((share) => share.probability)).toEqual([(EXPLORATION_PER_MILLE / 1000) * 0.7, (EXPLORATION_PER_MILLE / 1000) * 0.3 + 0.9]);
  });

  it('forgets outcomes older than the window, and keeps brands apart', () => {
    const clock = new ManualClock();
    const rates = new SuccessRates(clock);
    rates.record('GA', 'visa', false);
    rates.record('GA', 'master', true);
    expect(rates.rate('GA', 'visa')).toEqual({ successes: 0, total: 1 });
    expect(rates.rate('GA', 'master')).toEqual({ successes: 1, total: 1 });
    clock.advance(rates.window.windowMs + 1);
    expect(rates.rate('GA', 'visa')).toEqual({ successes: 0, total: 0 });
  });

  it('keeps only the last outcomes of a series', () => {
    const rates = new SuccessRates(new ManualClock(), { windowMs: 60_000, maxOutcomes: 3 });
    for (const outcome of [false, false, true, true, true]) rates.record('GA', 'visa', outcome);
    expect(rates.rate('GA', 'visa')).toEqual({ successes: 3, total: 3 });
  });
});

describe('workflow validation', () => {
  it('refuses what cannot route, naming the place', () => {
    const errors = workflowErrors({
      name: 'Bad',
      rules: [
        { name: 'all', condition: {}, target: { gateway_token: 'GA' } },
        { name: 'all', condition: { amount_min: 10, amount_max: 5, card_brands: ['visa', 'bogus'], currencies: ['eur'] }, target: { split: [] } },
        { name: 'weights', condition: { bin_range: { from: '5100', to: '51999' }, bin_prefixes: ['4x'] }, target: { split: [{ gateway_token: 'GA', weight: 0 }, { gateway_token: 'GA', weight: 2 }] } },
      ],
      defaultTarget: { gateway_token: '' },
      backupGatewayTokens: ['GB', 'GB'],
      retryMode: 'standard',
      successRateRouting: false,
    });
    expect(errors.map((error) => error.attribute)).toEqual([
      'rules[1]',
      'rules[1].name',
      'rules[1].condition.card_brands',
      'rules[1].condition.currencies',
      'rules[1].condition.amount_max',
      'rules[1].target.split',
      'rules[2]',
      'rules[2].condition.bin_prefixes',
      'rules[2].condition.bin_range',
      'rules[2].target.split[0].weight',
      'rules[2].target.split',
      'default_target',
      'backup_gateway_tokens',
    ]);
    expect(errors.every((error) => error.key === 'errors.invalid')).toBe(true);
  });
});
