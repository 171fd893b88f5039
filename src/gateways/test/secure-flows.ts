import { blankResponse, type GatewayRequest, type GatewayResponse, type PendingAction } from '../kit/index.js';

/*
 * The test gateway's 3-D Secure 2 and offsite flows (docs/test-gateway-flows.md), after Spreedly's test data:
 * on the enrolled card 4556761029983886 with `attempt_3dsecure`, the amount picks the flow; a
 * `sprel` payment method goes offsite. Nothing leaves the process: the forms and URLs lead the
 * cardholder's browser straight back to `redirect_url`, and the merchant finishes with
 * `POST /v1/transactions/<t>/complete`. docs/test-gateway-flows.md lists every path.
 */

/** Spreedly's 3DS2 test amounts (cents) and what each does on the test gateway. */
export const THREE_DS_FLOWS = {
  3001: 'frictionless',
  3002: 'fallback_3ds1',
  3003: 'fingerprint_then_authorize',
  3004: 'fingerprint_then_challenge',
  3005: 'challenge',
  3103: 'fingerprint_then_fail',
  3104: 'challenge_then_fail',
} as const;

type Flow = (typeof THREE_DS_FLOWS)[keyof typeof THREE_DS_FLOWS] | 'offsite';
type Stage = 'frictionless' | 'redirect' | 'device_fingerprint' | 'challenge';

/** What the gateway remembers between the first call and `complete`: opaque to the client. */
interface Context {
  flow: Flow;
  stage: Stage;
}

function encodeContext(context: Context): string {
  return Buffer.from(JSON.stringify(context)).toString('base64url');
}

function decodeContext(text: string | null | undefined): Context | null {
  if (text === null || text === undefined) return null;
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Context>;
    return typeof parsed.flow === 'string' && typeof parsed.stage === 'string' ? (parsed as Context) : null;
  } catch {
    return null;
  }
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `redirect_url` with the transaction token added, as Spreedly sends the cardholder back. */
function returnUrl(request: GatewayRequest): string {
  const base = request.redirectUrl ?? '';
  if (base === '') return '';
  return `${base}${base.includes('?') ? '&' : '?'}transaction_token=${encodeURIComponent(request.transactionToken)}`;
}

function action(request: GatewayRequest, context: Context): PendingAction {
  const back = returnUrl(request);
  const encoded = encodeContext(context);
  const base: PendingAction = { requiredAction: 'none', threeDsContext: encoded, deviceFingerprintForm: null, challengeForm: null, challengeUrl: null, checkoutUrl: null };
  if (context.stage === 'device_fingerprint') {
    return {
      ...base,
      requiredAction: 'device_fingerprint',
      deviceFingerprintForm: `<form id="threeDSMethodForm" method="POST" action="${escapeHtml(back)}"><input type="hidden" name="threeDSMethodData" value="${escapeHtml(encoded)}"/></form>`,
    };
  }
  if (context.stage === 'challenge') {
    return {
      ...base,
      requiredAction: 'challenge',
      challengeUrl: back,
      challengeForm: `<form id="threeDSChallengeForm" method="POST" action="${escapeHtml(back)}"><input type="hidden" name="creq" value="${escapeHtml(encoded)}"/></form>`,
    };
  }
  if (context.stage === 'redirect') return { ...base, checkoutUrl: back };
  return base;
}

function pending(request: GatewayRequest, context: Context, gatewayTransactionId: string): GatewayResponse {
  return { ...blankResponse(false, 'Pending'), pending: true, gatewayTransactionId, pendingAction: action(request, context) };
}

/**
 * The first answer of a 3-D Secure purchase or authorize on the enrolled card, or null when the
 * amount is not one of the flows (the card then behaves as any success card).
 */
export function startThreeDs(request: GatewayRequest, gatewayTransactionId: string): GatewayResponse | null {
  const flow = THREE_DS_FLOWS[request.amount as keyof typeof THREE_DS_FLOWS] as Flow | undefined;
  if (flow === undefined) return null;
  if (flow === 'frictionless') {
    const verb = request.operation === 'authorize' ? 'authorize' : 'purchase';
    return { ...blankResponse(true, `Successful ${verb}`), gatewayTransactionId, pendingAction: action(request, { flow, stage: 'frictionless' }) };
  }
  const stage: Stage = flow === 'fallback_3ds1' ? 'redirect' : flow === 'challenge' || flow === 'challenge_then_fail' ? 'challenge' : 'device_fingerprint';
  return pending(request, { flow, stage }, gatewayTransactionId);
}

/** An offsite (sprel) purchase or authorize: pending, the cardholder sent to `checkout_url`. */
export function startOffsite(request: GatewayRequest, gatewayTransactionId: string): GatewayResponse {
  return pending(request, { flow: 'offsite', stage: 'redirect' }, gatewayTransactionId);
}

/**
 * `complete` of a transaction one of these flows left pending: the next step (3004 goes from the
 * fingerprint to a challenge), a failure (3103, 3104) or success. Null when the context is not ours
 * (the caller then completes it as before).
 */
export function continueFlow(request: GatewayRequest, succeeded: () => GatewayResponse): GatewayResponse | null {
  const context = decodeContext(request.reference?.context);
  if (context === null) return null;
  const id = request.reference?.gatewayTransactionId ?? null;
  if (context.flow === 'fingerprint_then_challenge' && context.stage === 'device_fingerprint') return pending(request, { ...context, stage: 'challenge' }, id ?? '');
  if (context.flow === 'fingerprint_then_fail' || context.flow === 'challenge_then_fail') {
    return { ...blankResponse(false, 'The cardholder failed 3D Secure authentication.'), errorCode: 'card_declined', gatewayTransactionId: id };
  }
  return { ...succeeded(), gatewayTransactionId: id };
}
