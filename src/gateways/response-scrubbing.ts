import { Scrubber } from '../domain/scrubbing/scrubber.js';
import type { AdapterPaymentMethod, GatewayRequest, GatewayResponse, TranscriptEntry } from './kit/index.js';

/**
 * The scrubber of one gateway call: it knows the card, CVV, bank numbers, a wallet token's DPAN and
 * cryptogram (scrubbed like a CVV, docs/wallets.md) and credentials sent,
 * and those of `concerning` (the payment method of a reference transaction, which is not sent).
 * Credentials named in `safeCredentials` (declared `safe`: shown in the gateway's view anyway) are
 * left out: a short numeric one such as Redsys's terminal "1" would otherwise be found in every
 * gateway id whose base64 decoding holds that digit, and mangle it.
 */
export function scrubberFor(request: GatewayRequest, concerning: AdapterPaymentMethod | null = null, safeCredentials: ReadonlySet<string> = new Set()): Scrubber {
  const values: Array<string | null | undefined> = Object.entries(request.credentials)
    .filter(([name]) => !safeCredentials.has(name))
    .map(([, secret]) => secret.reveal());
  for (const method of [request.paymentMethod, concerning]) {
    if (method?.type === 'credit_card') values.push(method.number.reveal(), method.verificationValue?.reveal());
    if (method?.type === 'bank_account') values.push(method.accountNumber.reveal(), method.routingNumber.reveal());
    if (method?.type === 'apple_pay' || method?.type === 'google_pay') values.push(method.number.reveal(), method.cryptogram?.reveal());
  }
  return Scrubber.of(values);
}

/**
 * What the gateway answered, with every text it wrote scrubbed (message, error detail, AVS and
 * CVV codes and messages, gateway-specific fields), ids included: an id or third-party token is
 * only changed when it holds card data (a vault that echoes the PAN in its token), and then it
 * must not be stored even if later calls with it fail.
 */
export function scrubResponse(response: GatewayResponse, scrubber: Scrubber): GatewayResponse {
  const text = (value: string | null) => (value === null ? null : scrubber.text(value));
  return {
    ...response,
    message: scrubber.text(response.message),
    gatewayTransactionId: text(response.gatewayTransactionId),
    thirdPartyToken: text(response.thirdPartyToken),
    errorDetail: text(response.errorDetail),
    avsCode: text(response.avsCode),
    avsMessage: text(response.avsMessage),
    cvvCode: text(response.cvvCode),
    cvvMessage: text(response.cvvMessage),
    specificResponseFields: scrubber.deep(response.specificResponseFields),
  };
}

/** Scrubs the transcript entries of a call in place (adapters scrub by field; this by value). */
export function scrubTranscriptEntries(entries: TranscriptEntry[], scrubber: Scrubber): void {
  for (const entry of entries) entry.text = scrubber.text(entry.text);
}
