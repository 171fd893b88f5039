import Mustache from 'mustache';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { renderTemplate, TemplateError } from '../../src/receivers/delivery-template.js';
import { deliveryVariables, exportVariables, type DeliverySubject } from '../../src/receivers/template-variables.js';

/** Delivery templates (wire-reference §7) and the variables a receiver's template sees. */

const PAN = '4111111111111111';
const CVV = '123';

const card: DeliverySubject = {
  token: 'PmCardToken000000000000001',
  paymentMethodType: 'credit_card',
  createdAt: '2024-03-05T07:08:09.123Z',
  updatedAt: '2024-03-06T10:11:12.000Z',
  email: 'ada@example.com',
  fields: {
    first_name: 'Ada',
    last_name: 'Lovelace & Co <"Ltd">',
    month: 4,
    year: 2031,
    card_type: 'visa',
    last_four_digits: '1111',
    first_six_digits: '411111',
    address1: '1 Main St',
    address2: null,
    city: 'London',
    state: null,
    zip: 'SW1',
    country: 'GB',
    phone_number: '+44 20 0000',
    company: 'Analytical',
  },
  number: PAN,
  verificationValue: CVV,
};

const bank: DeliverySubject = {
  token: 'PmBankToken000000000000001',
  paymentMethodType: 'bank_account',
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-02T00:00:00.000Z',
  email: null,
  fields: { first_name: 'Grace', last_name: 'Hopper', bank_name: 'First Bank', account_type: 'checking', account_holder_type: 'personal' },
  routingNumber: '021000021',
  accountNumber: '9876543210',
};

const thirdParty: DeliverySubject = {
  token: 'PmThirdToken00000000000001',
  paymentMethodType: 'third_party_token',
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
  email: null,
  fields: { third_party_token: 'cus_123', gateway_type: 'stripe' },
};

function templateError(template: string, view: object = {}): TemplateError {
  let caught: unknown = null;
  try {
    renderTemplate(template, view);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(TemplateError);
  return caught as TemplateError;
}

describe('renderTemplate', () => {
  it('escapes {{ var }} as Ruby does (& < > " \'), keeps {{{ var }}} raw, and allows spaces inside the braces', () => {
    const view = { name: `Tom & "Jerry" <cat> 'x'`, key: 'ab/c=d`' };
    expect(renderTemplate('{{ name }}|{{name}}', view)).toBe('Tom &amp; &quot;Jerry&quot; &lt;cat&gt; &#39;x&#39;|Tom &amp; &quot;Jerry&quot; &lt;cat&gt; &#39;x&#39;');
    expect(renderTemplate('{{{ name }}}|{{& name}}', view)).toBe(`Tom & "Jerry" <cat> 'x'|Tom & "Jerry" <cat> 'x'`);
    // Unlike mustache.js's default, / = and ` (common in API keys) are left alone.
    expect(renderTemplate('{{ key }}', view)).toBe('ab/c=d`');
    expect(renderTemplate('{{ missing }}-{{ nothing }}', { nothing: null })).toBe('-');
    expect(renderTemplate('{{ n }}', { n: 42 })).toBe('42');
  });

  it('renders sections over lists, inverted sections, and leaves plain text alone', () => {
    const view = { payment_methods: [{ t: 'a' }, { t: 'b' }], empty: [] };
    expect(renderTemplate('{{#payment_methods}}[{{ t }}]{{/payment_methods}}', view)).toBe('[a][b]');
    expect(renderTemplate('{{^empty}}none{{/empty}}', view)).toBe('none');
    expect(renderTemplate('{"order_id": 12309}', view)).toBe('{"order_id": 12309}');
  });

  it('a syntax error is a TemplateError that names the problem, not the template; it maps to 422 errors.invalid on the field', () => {
    const unclosed = templateError(`{"card": "{{#credit_card_number}}${PAN}"}`);
    expect(unclosed.reason).toBe('unclosed section at 51');
    expect(unclosed.message).toBe('The template is invalid: unclosed section at 51.');
    expect(unclosed.message).not.toContain(PAN);
    expect(templateError('{{ credit_card_number').reason).toBe('unclosed tag at 21');
    expect(templateError('{{/a}}').reason).toBe('unopened section at 0');
    const appError = unclosed.toAppError('body');
    expect(appError).toBeInstanceOf(AppError);
    expect(appError.status).toBe(422);
    expect(appError.entries).toEqual([{ key: 'errors.invalid', attribute: 'body', message: 'Body is invalid' }]);
  });

  it('refuses partials and names that reach into the JavaScript object model', () => {
    expect(templateError('{{> header}}').reason).toBe('partials are not supported');
    for (const template of ['{{ constructor }}', '{{ a.constructor.constructor }}', '{{#x.__proto__}}y{{/x.__proto__}}', '{{ toString }}', '{{{ f.prototype }}}', '{{^hasOwnProperty}}z{{/hasOwnProperty}}']) {
      expect(templateError(template, { a: 'text', x: {}, f: 'y' }).reason).toBe('it names a reserved property');
    }
  });

  it('keeps nothing across renders: mustache.js default cache stays empty', () => {
    Mustache.clearCache();
    const before = Mustache.templateCache as unknown as { _cache: Record<string, unknown> };
    renderTemplate('{{ unique_template_for_cache_check }}', {});
    expect(Object.keys(before._cache)).toHaveLength(0);
  });
});

describe('deliveryVariables', () => {
  it('exposes the credit card variables of wire-reference §7, the expiration date as YYYY-MM-01', () => {
    const view = deliveryVariables(card, {});
    expect(view).toMatchObject({
      payment_method_token: card.token,
      credit_card_token: card.token,
      credit_card_number: PAN,
      credit_card_verification_value: CVV,
      credit_card_first_name: 'Ada',
      credit_card_last_name: 'Lovelace & Co <"Ltd">',
      credit_card_full_name: 'Ada Lovelace & Co <"Ltd">',
      credit_card_month: 4,
      credit_card_year: 2031,
      credit_card_expiration_date: '2031-04-01',
      credit_card_created_at: '2024-03-05 07:08:09 UTC',
      credit_card_updated_at: '2024-03-06 10:11:12 UTC',
      credit_card_type: 'visa',
      credit_card_email: 'ada@example.com',
      credit_card_address1: '1 Main St',
      credit_card_address2: null,
      credit_card_city: 'London',
      credit_card_state: null,
      credit_card_zip: 'SW1',
      credit_card_country: 'GB',
      credit_card_phone_number: '+44 20 0000',
      credit_card_company: 'Analytical',
      credit_card_last_four_digits: '1111',
      credit_card_first_six_digits: '411111',
    });
    expect(renderTemplate('{{ credit_card_expiration_date }} {{credit_card_last_name}}', view)).toBe('2031-04-01 Lovelace &amp; Co &lt;&quot;Ltd&quot;&gt;');
    expect(deliveryVariables({ ...card, fields: { ...card.fields, month: null } }, {}).credit_card_expiration_date).toBeNull();
  });

  it('a redacted card (no number, no CVV) renders those variables empty and keeps the stored last four', () => {
    const view = deliveryVariables({ ...card, number: undefined, verificationValue: undefined, fields: { ...card.fields, first_six_digits: undefined } } as DeliverySubject, {});
    expect(renderTemplate('[{{ credit_card_number }}][{{ credit_card_verification_value }}][{{ credit_card_last_four_digits }}]', view)).toBe('[][][1111]');
  });

  it('exposes bank account and third-party token variables', () => {
    expect(deliveryVariables(bank, {})).toMatchObject({
      payment_method_token: bank.token,
      bank_account_routing_number: '021000021',
      bank_account_account_number: '9876543210',
      bank_account_first_name: 'Grace',
      bank_account_last_name: 'Hopper',
      bank_account_full_name: 'Grace Hopper',
      bank_account_account_type: 'checking',
      bank_account_account_holder_type: 'personal',
      bank_account_bank_name: 'First Bank',
    });
    expect(deliveryVariables(thirdParty, {})).toMatchObject({ third_party_token_reference: 'cus_123', third_party_token_gateway_type: 'stripe', third_party_token_token: thirdParty.token });
  });

  it('receiver credentials are variables by name, and never replace a payment method variable', () => {
    const view = deliveryVariables(card, { user_name: 'merchant-7', secret_password: 'p&ss', credit_card_number: '0000000000000000' });
    expect(renderTemplate('{{user_name}}:{{{ secret_password }}}:{{ credit_card_number }}', view)).toBe(`merchant-7:p&ss:${PAN}`);
  });
});

describe('exportVariables', () => {
  it('lists every payment method under payment_methods, with the credentials around them', () => {
    const view = exportVariables([card, bank], { batch_id: 'B-1' });
    const rendered = renderTemplate('{{ batch_id }}\n{{#payment_methods}}{{ payment_method_token }},{{ credit_card_number }}{{ bank_account_account_number }}\n{{/payment_methods}}', view);
    expect(rendered).toBe(`B-1\n${card.token},${PAN}\n${bank.token},9876543210\n`);
  });

  it('a credential named like a variable cannot fill in for a payment method that lacks it', () => {
    const view = exportVariables([bank], { credit_card_number: 'CREDENTIAL', payment_methods: 'x' });
    expect(renderTemplate('{{#payment_methods}}[{{ credit_card_number }}]{{/payment_methods}}', view)).toBe('[]');
  });
});
