import { describe, expect, it } from 'vitest';
import { blankResponse, type GatewayRequest } from '../../src/gateways/kit/index.js';
import { scrubberFor, scrubResponse, scrubTranscriptEntries } from '../../src/gateways/response-scrubbing.js';
import { Secret } from '../../src/domain/secret.js';
import { WALLET_CRYPTOGRAM, walletMethod } from '../helpers/wallet-methods.js';

/** The gateway side of the shared scrubber: what an answer may hold after the call's scrubber. */

const PAN = '4242424242424242';

function request(): GatewayRequest {
  return {
    operation: 'purchase',
    transactionToken: 't',
    credentials: { login: new Secret('sk_live_topsecretvalue') },
    amount: 100,
    currencyCode: 'USD',
    paymentMethod: {
      type: 'credit_card',
      number: new Secret(PAN),
      verificationValue: new Secret('531'),
      month: 1,
      year: 2030,
      firstName: null,
      lastName: null,
      cardType: null,
      address: {},
      email: null,
    },
    reference: null,
    orderId: null,
    description: null,
    ip: null,
    email: null,
    shippingAddress: null,
    gatewaySpecificFields: {},
    attempt3dsecure: false,
    testMode: true,
  };
}

describe('scrubResponse', () => {
  it('scrubs every text field, gateway-specific fields deep, and ids only when they hold card data', () => {
    const scrubber = scrubberFor(request());
    const response = scrubResponse(
      {
        ...blankResponse(false, 'Card 4242 4242 4242 4242 (cvc 531) declined; key sk_live_topsecretvalue'),
        gatewayTransactionId: 'ch_123',
        thirdPartyToken: `vault:${PAN}`,
        errorDetail: `raw ${Buffer.from(PAN).toString('base64')}`,
        avsMessage: '4242-4242-4242-4242',
        cvvMessage: 'cvc 531',
        specificResponseFields: { gw: { echo: [`&#52;${PAN.slice(1)}`, 4242424242424242], ok: 'fine 1000.00' } },
      },
      scrubber,
    );
    expect(response.message).toBe('Card [FILTERED] (cvc [FILTERED]) declined; key [FILTERED]');
    expect(response.gatewayTransactionId).toBe('ch_123');
    expect(response.thirdPartyToken).toBe('vault:[FILTERED]');
    expect(response.errorDetail).toBe('raw [FILTERED]');
    expect(response.avsMessage).toBe('[FILTERED]');
    expect(response.cvvMessage).toBe('cvc [FILTERED]');
    expect(response.specificResponseFields).toEqual({ gw: { echo: ['[FILTERED]', '[FILTERED]'], ok: 'fine 1000.00' } });
  });

  it('scrubs a wallet token\'s DPAN and cryptogram from what the gateway answered, as a CVV is', () => {
    const scrubber = scrubberFor({ ...request(), paymentMethod: walletMethod(PAN) });
    const response = scrubResponse({ ...blankResponse(false, `cryptogram ${WALLET_CRYPTOGRAM} refused for ${PAN}`), errorDetail: `bad ${WALLET_CRYPTOGRAM}` }, scrubber);
    expect(response.message).not.toContain(WALLET_CRYPTOGRAM);
    expect(response.message).not.toContain(PAN);
    expect(response.errorDetail).not.toContain(WALLET_CRYPTOGRAM);
  });

  it('scrubs transcript entries in place', () => {
    const entries = [{ text: `[<*] {"error":{"message":"card 4242.4242.4242.4242"}}` }];
    scrubTranscriptEntries(entries, scrubberFor(request()));
    expect(entries[0]?.text).toBe('[<*] {"error":{"message":"card [FILTERED]"}}');
  });

  it('leaves credentials declared safe alone: a short numeric one (Redsys terminal "1") would mangle ids whose base64 decoding holds it', () => {
    const withTerminal = { ...request(), credentials: { terminal: new Secret('1'), secret_key: new Secret('sq7HjrUOBfKmC576ILgskD5srU870gJ7') } };
    const id = '0042IDEgAbCd|1000|978'; // "IDEg" is the base64 of " 1 "
    expect(scrubberFor(withTerminal).text(id)).not.toBe(id);
    const scrubber = scrubberFor(withTerminal, null, new Set(['terminal']));
    expect(scrubber.text(id)).toBe(id);
    expect(scrubber.text('key sq7HjrUOBfKmC576ILgskD5srU870gJ7')).toBe('key [FILTERED]');
  });
});
