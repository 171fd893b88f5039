/**
 * Spreedly's published test data (`wire-reference.md` §5) plus Coffer's own failure-path cards
 * (`API.md` §6). A payment method whose number is listed here gets `test=true`, and only such
 * payment methods may be used on the test gateway (`src/vault/test-cards.ts` decides that); the
 * test gateway reads its outcomes from here. It lives in the domain because both the vault and the
 * test gateway read it, and adapters never import the vault (docs/gateways/README.md).
 */

/** What the test gateway does with a purchase, authorize or verify on a test card. */
export type TestCardOutcome =
  /** Succeeds. */
  | 'succeed'
  /** Declined: `gateway_processing_failed`, "Unable to process the … transaction." */
  | 'decline'
  /** Declined with "Account closed"; the payment method becomes `closed` (Coffer addition). */
  | 'account_closed'
  /** Gateway timeout: HTTP 408, `gateway_processing_result_unknown` (Coffer addition). */
  | 'timeout'
  /** Gateway error counted by the circuit breaker: `gateway_processing_failed` (Coffer addition). */
  | 'gateway_error';

/** One test card: its number, the brand it must detect as, and what the test gateway does with it. */
export interface TestCard {
  readonly number: string;
  /** Its `card_type` (test/vault/card-rules.test.ts checks that detection agrees). */
  readonly brand: string;
  readonly outcome: TestCardOutcome;
  /** Which row of the source table it comes from, for people reading test failures. */
  readonly label: string;
}

/** Coffer: declined with "Account closed", and the payment method is closed. */
export const CLOSED_ACCOUNT_CARD = '4000000000000069';
/** Coffer: the gateway times out (408, result unknown). */
export const TIMEOUT_CARD = '4000000000000408';
/** Coffer: the gateway errors (counts toward the circuit breaker). */
export const GATEWAY_ERROR_CARD = '4000000000000507';
/** Spreedly: a test card on which third-party vaulting (`store`) fails with "Unable to store card". */
export const STORE_FAILS_CARD = '4217651111111119';

const THREE_DS_SUCCESS_CARD = '4556761029983886';
const THREE_DS_DECLINE_CARD = '4024007101934890';

function pair(label: string, brand: string, success: string, decline: string): TestCard[] {
  return [
    { number: success, brand, outcome: 'succeed', label },
    { number: decline, brand, outcome: 'decline', label },
  ];
}

const CARDS: TestCard[] = [
  ...pair('Visa', 'visa', '4111111111111111', '4012888888881881'),
  ...pair('Visa 19-digit', 'visa', '4444333322221111455', '4917610000000000003'),
  ...pair('Mastercard', 'master', '5555555555554444', '5105105105105100'),
  ...pair('Mastercard 2-series', 'master', '2223003122003222', '2720992720992729'),
  ...pair('Amex', 'american_express', '378282246310005', '371449635398431'),
  ...pair('Discover', 'discover', '6011111111111117', '6011000990139424'),
  ...pair('Diners', 'diners_club', '30569309025904', '30207712915383'),
  ...pair('JCB', 'jcb', '3569990010030400', '3528327757705979'),
  ...pair('Maestro', 'maestro', '6759000000000000005', '6799990100000000019'),
  ...pair('3DS enrolled', 'visa', THREE_DS_SUCCESS_CARD, THREE_DS_DECLINE_CARD),
  // Other operations succeed on this card; only `store` fails (see STORE_FAILS_CARD).
  { number: STORE_FAILS_CARD, brand: 'visa', outcome: 'succeed', label: 'Third-party vaulting failure' },
  { number: '5186001700008785', brand: 'master', outcome: 'succeed', label: 'Click to pay Mastercard' },
  { number: '5120350100064537', brand: 'master', outcome: 'succeed', label: 'Click to pay Mastercard' },
  { number: '4622943127011022', brand: 'visa', outcome: 'succeed', label: 'Click to pay Visa' },
  { number: '373708623186001', brand: 'american_express', outcome: 'succeed', label: 'Click to pay Amex' },
  { number: '6011208800050000', brand: 'discover', outcome: 'succeed', label: 'Click to pay Discover' },
  { number: CLOSED_ACCOUNT_CARD, brand: 'visa', outcome: 'account_closed', label: 'Coffer account closed' },
  { number: TIMEOUT_CARD, brand: 'visa', outcome: 'timeout', label: 'Coffer gateway timeout' },
  { number: GATEWAY_ERROR_CARD, brand: 'visa', outcome: 'gateway_error', label: 'Coffer gateway error' },
];

/** Every test card, in the order of the source tables. */
export const TEST_CARDS: readonly TestCard[] = Object.freeze(CARDS.map((card) => Object.freeze(card)));

/** Every test card number (digits only). Any other number is a real card. */
export const TEST_CARD_NUMBERS: ReadonlySet<string> = new Set(TEST_CARDS.map((c) => c.number));

/** Test card number → what the test gateway does with it; the "Decline" column maps to `decline`. */
export const TEST_CARD_OUTCOMES: ReadonlyMap<string, TestCardOutcome> = new Map(
  TEST_CARDS.map((c) => [c.number, c.outcome]),
);

/** 3-D Secure enrolled test cards: the first succeeds once the challenge completes, the second declines. */
export const THREE_DS_CARDS: ReadonlySet<string> = new Set([THREE_DS_SUCCESS_CARD, THREE_DS_DECLINE_CARD]);
