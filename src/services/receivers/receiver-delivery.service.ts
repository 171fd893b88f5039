import { NO_REQUEST, type RequestMeta } from '../../domain/request.js';
import { receiverOperations } from '../../receivers/receiver-types.js';
import { AppError, fieldError, MESSAGES, type ErrorEntry } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import { orderedToken, TOKEN_LENGTH } from '../../domain/tokens.js';
import { Scrubber } from '../../domain/scrubbing/scrubber.js';
import { checkTemplate, renderTemplate, TemplateError } from '../../receivers/delivery-template.js';
import { DELIVER_BUDGET } from '../../receivers/template-limits.js';
import { EgressRefusedError } from '../../receivers/egress.js';
import { urlMatchesHostnames } from '../../receivers/hostnames.js';
import { DeliveryFaultError, DeliveryInputError, DeliveryResultUnknownError, parseHeaderLines, type HttpDeliveryClient } from '../../receivers/http-delivery.js';
import { deliveryVariables } from '../../receivers/template-variables.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { Repositories } from '../../store/repositories.js';
import type { PaymentMethodSealer } from '../payment-method-sealer.js';
import { changePaymentMethodIfState } from '../payment-method-changes.js';
import { receiverRedacted, type ReceiverRecord, type ReceiverService } from '../receiver.service.js';
import { newTransaction, recordTransaction, updateTransaction } from '../transaction-records.js';
import { STATE_REFUSALS } from '../transactions/gateway-transaction.service.js';
import type { Refusal } from '../transactions/pipeline/pipeline-types.js';
import { deliveryAccess, openDeliverySubject, sensitiveValuesOf } from './delivery-subject.js';
import { receiverDetailsOf, receiverSnapshot, type ReceiverTransactionDetails } from './receiver-transaction-details.js';
import type { Environment } from '../../domain/environment.js';
import { TransactionState, type Transaction } from '../../domain/transaction.js';

/** The unit-of-work scope of one delivery: the environment and the API request it serves. */
type DeliveryScope = { environment: Environment; request: RequestMeta };

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'cardAccess' | 'journal' | 'locks' | 'paymentMethods' | 'transactions';

/** `delivery{…}` of POST receivers/<t>/deliver, already coerced. */
export interface DeliveryInput {
  paymentMethodToken?: string | undefined;
  url?: string | undefined;
  body?: string | undefined;
  headers?: string | undefined;
  requestMethod?: string | undefined;
  continueCaching?: boolean | undefined;
  encodeResponse?: boolean | undefined;
}

/** A recorded delivery and the HTTP status that reports it. */
export interface DeliveryOutcome {
  status: number;
  transaction: Transaction;
}

/** Clients of the receiver call and Coffer's client-side limits. */
export interface DeliverySettings {
  timeoutMs: number;
  /** mTLS material of a certificate of this environment (the certificates service). */
  clientCertificate: (environment: Environment, token: string) => Promise<{ cert: string; key: string }>;
}

const METHODS = ['POST', 'PUT', 'PATCH'] as const;
const TEST_RECEIVER_NEEDS_TEST_CARD = 'The test receiver accepts only test payment methods. Use a production receiver for real payment methods.';
const URL_NOT_ALLOWED = "The url must match one of the receiver's hostnames (scheme, host and port).";

/**
 * Deliveries to HTTP receivers. Persist, call, persist: the checks run first; then the CVV is
 * consumed (unless `continue_caching`) and a `processing` transaction committed in one database
 * transaction; only then is the receiver called; its scrubbed answer is committed after.
 */
export class ReceiverDeliveryService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly receivers: ReceiverService,
    private readonly sealer: PaymentMethodSealer,
    private readonly client: HttpDeliveryClient,
    private readonly settings: DeliverySettings,
    private readonly clock: Clock,
  ) {
    this.repos = store.repos;
  }

  async deliver(environment: Environment, receiverToken: string, input: DeliveryInput, request: RequestMeta = NO_REQUEST): Promise<DeliveryOutcome> {
    const scope: DeliveryScope = { environment, request };
    const receiver = await this.receivers.show(environment, receiverToken);
    const method = checkInput(input);
    checkTemplates(input);
    if (!receiverOperations(receiver.definition).deliver) {
      throw new AppError({ key: 'errors.invalid', attribute: 'receiver_type', message: 'Deliver sends to HTTP receivers; use export for SFTP receivers' });
    }
    if (receiver.row.state === 'redacted') throw receiverRedacted();
    const paymentMethod = await this.repos.paymentMethods.find(environment.key, input.paymentMethodToken as string);
    if (paymentMethod === undefined) throw new AppError({ key: 'errors.payment_method_not_found', message: MESSAGES.paymentMethodNotFound });
    if (receiver.definition.test && !paymentMethod.test) {
      throw new AppError({ key: 'errors.account_inactive', message: environment.production ? TEST_RECEIVER_NEEDS_TEST_CARD : MESSAGES.notActivated(environment.key) });
    }
    const base = { environment, scope, receiver, paymentMethodToken: paymentMethod.token, method };
    const refusal = STATE_REFUSALS[paymentMethod.storageState];
    if (refusal !== undefined) return this.refuse(base, '', refusal);

    const subject = await openDeliverySubject(this.sealer, paymentMethod);
    if (subject === null) return this.refuse(base, '', STATE_REFUSALS.redacted as Refusal);
    const secrets = await this.receivers.openSecrets(receiver.row);
    const sensitive = [...sensitiveValuesOf(subject), ...secrets.sensitive];
    const variables = deliveryVariables(subject, secrets.credentials);
    const rendered = await renderAll(input, variables);
    const shownUrl = Scrubber.of(sensitive).text(rendered.url);
    const url = parseUrl(rendered.url);
    checkHeaders(rendered.headers);
    if (!urlMatchesHostnames(url, this.receivers.allowedHostnames(receiver))) throw new AppError({ key: 'errors.url_not_allowed', attribute: 'url', message: URL_NOT_ALLOWED });
    const certificate = receiver.row.certificateToken === null ? undefined : await this.settings.clientCertificate(environment, receiver.row.certificateToken);

    const token = orderedToken(TOKEN_LENGTH.item);
    const refused = await this.store.unitOfWork(async (repos) => {
      await repos.locks.serialize(`payment_method:${paymentMethod.token}`);
      const current = await repos.paymentMethods.find(environment.key, paymentMethod.token);
      const stillRefused = current === undefined ? STATE_REFUSALS.redacted : STATE_REFUSALS[current.storageState];
      if (stillRefused !== undefined) return stillRefused;
      await changePaymentMethodIfState(repos, environment.key, paymentMethod.token, ['cached', 'retained'], {
        ...(input.continueCaching === true ? {} : { sealed: { cvv: null }, cvvLength: null, cvvExpiresAt: null }),
        ...(paymentMethod.singleUse ? { storageState: 'used' as const } : {}),
        updatedAt: this.clock.now().toISOString(),
      });
      await recordTransaction(repos, this.row(base, token, TransactionState.processing, shownUrl));
      // The values opened above leave now, for this delivery (docs/audit.md).
      if (subject.number !== undefined || subject.accountNumber !== undefined) await repos.cardAccess.record(deliveryAccess(environment, paymentMethod.token, 'deliver', token, request, this.clock.now().toISOString()));
      return null;
    }, scope);
    if (refused !== null) return this.refuse(base, shownUrl, refused);

    try {
      const result = await this.client.send({
        url: rendered.url,
        method,
        headers: rendered.headers,
        body: rendered.body,
        timeoutMs: this.settings.timeoutMs,
        sensitive,
        encodeResponse: input.encodeResponse === true,
        ...(certificate === undefined ? {} : { clientCertificate: certificate }),
      });
      const ok = result.status >= 200 && result.status < 300;
      return await this.finish(scope, token, ok ? 200 : 422, {
        state: ok ? TransactionState.succeeded : TransactionState.gatewayProcessingFailed,
        messageKey: ok ? 'messages.transaction_succeeded' : 'messages.receiver_error',
        message: ok ? 'Succeeded!' : `The receiver answered with HTTP ${result.status}.`,
        details: { deliver_time_ms: result.latencyMs, response: { status: result.status, headers: result.headers, body: result.body } },
        transcript: result.transcript,
      });
    } catch (error) {
      if (error instanceof EgressRefusedError) {
        return this.finish(scope, token, 422, { state: TransactionState.failed, messageKey: 'messages.egress_refused', message: `Coffer refused to connect: ${(error as Error).message}`, details: {}, transcript: null });
      }
      if (error instanceof DeliveryResultUnknownError) {
        return this.finish(scope, token, 408, { state: TransactionState.resultUnknown, messageKey: 'messages.receiver_result_unknown', message: error.message, details: { deliver_time_ms: error.latencyMs }, transcript: error.transcript });
      }
      if (error instanceof DeliveryFaultError) {
        return this.finish(scope, token, 422, { state: TransactionState.gatewayProcessingFailed, messageKey: 'messages.receiver_unreachable', message: error.message, details: { deliver_time_ms: error.latencyMs }, transcript: error.transcript });
      }
      // A bug: the row must not stay `processing`, and whether anything left is unknown.
      await this.finish(scope, token, 500, { state: TransactionState.resultUnknown, messageKey: 'messages.receiver_result_unknown', message: 'The delivery failed unexpectedly.', details: {}, transcript: null });
      throw error;
    }
  }

  private row(base: { environment: Environment; receiver: ReceiverRecord; paymentMethodToken: string; method: string }, token: string, outcome: typeof TransactionState.processing | { state: typeof TransactionState.failed; messageKey: string; message: string }, url: string) {
    const details: ReceiverTransactionDetails = { url, request_method: base.method, deliver_time_ms: null, response: null, receiver: receiverSnapshot(base.receiver.row) };
    const row = newTransaction({
      environmentKey: base.environment.key,
      transactionType: 'DeliverPaymentMethod',
      outcome,
      token,
      paymentMethodToken: base.paymentMethodToken,
      details,
      now: this.clock.now().toISOString(),
    });
    return { ...row, receiverToken: base.receiver.row.token };
  }

  /** A delivery Coffer refuses before calling anyone: recorded as `failed`, 422 with the transaction. */
  private async refuse(base: { environment: Environment; scope: DeliveryScope; receiver: ReceiverRecord; paymentMethodToken: string; method: string }, url: string, refusal: Refusal): Promise<DeliveryOutcome> {
    const row = this.row(base, orderedToken(TOKEN_LENGTH.item), { state: TransactionState.failed, messageKey: refusal.messageKey, message: refusal.message }, url);
    await this.store.unitOfWork((repos) => recordTransaction(repos, row), base.scope);
    return { status: 422, transaction: (await this.repos.transactions.find(base.environment.key, row.token)) as Transaction };
  }

  private async finish(
    scope: DeliveryScope,
    token: string,
    status: number,
    outcome: { state: TransactionState; messageKey: string; message: string; details: Partial<ReceiverTransactionDetails>; transcript: string | null },
  ): Promise<DeliveryOutcome> {
    const { environment } = scope;
    const current = (await this.repos.transactions.find(environment.key, token)) as Transaction;
    const details = { ...receiverDetailsOf(current), ...outcome.details };
    const patch = {
      state: outcome.state,
      succeeded: outcome.state === TransactionState.succeeded,
      messageKey: outcome.messageKey,
      message: outcome.message,
      details,
      transcript: outcome.transcript,
      updatedAt: this.clock.now().toISOString(),
    };
    await this.store.unitOfWork((repos) => updateTransaction(repos, current, patch), scope);
    return { status, transaction: (await this.repos.transactions.find(environment.key, token)) as Transaction };
  }
}

/** Required fields and the request method; 422 with every missing field at once. */
function checkInput(input: DeliveryInput): (typeof METHODS)[number] {
  const errors: ErrorEntry[] = [];
  if (input.paymentMethodToken === undefined) errors.push(fieldError.blank('payment_method_token'));
  if (input.url === undefined) errors.push(fieldError.blank('url'));
  if (input.body === undefined) errors.push(fieldError.blank('body'));
  const method = (input.requestMethod ?? 'POST').toUpperCase();
  if (!(METHODS as readonly string[]).includes(method)) errors.push(fieldError.inclusion('request_method'));
  if (errors.length > 0) throw new AppError(errors);
  return method as (typeof METHODS)[number];
}

/** Syntax, nesting and the worst case of each template, before anything is looked up (docs/security.md, "Limits on input and templates"). */
function checkTemplates(input: DeliveryInput): void {
  const templates = { url: input.url as string, headers: input.headers ?? '', body: input.body as string };
  for (const [attribute, template] of Object.entries(templates) as Array<['url' | 'headers' | 'body', string]>) {
    try {
      checkTemplate(template, DELIVER_BUDGET);
    } catch (error) {
      if (error instanceof TemplateError) throw error.toAppError(attribute);
      throw error;
    }
  }
}

async function renderAll(input: DeliveryInput, variables: object): Promise<{ url: string; headers: string; body: string }> {
  const render = async (attribute: 'url' | 'headers' | 'body', template: string) => {
    try {
      return await renderTemplate(template, variables, DELIVER_BUDGET);
    } catch (error) {
      if (error instanceof TemplateError) throw error.toAppError(attribute);
      throw error;
    }
  };
  return { url: (await render('url', input.url as string)).trim(), headers: await render('headers', input.headers ?? ''), body: await render('body', input.body as string) };
}

/** The rendered url; never echoed in the error (it may hold card data). */
function parseUrl(rendered: string): URL {
  try {
    return new URL(rendered);
  } catch {
    throw new AppError({ key: 'errors.invalid', attribute: 'url', message: 'Url is not a valid URL once rendered' });
  }
}

/** Header lines that cannot be sent are the client's mistake: 422 before anything is recorded. */
function checkHeaders(rendered: string): void {
  try {
    parseHeaderLines(rendered);
  } catch (error) {
    if (error instanceof DeliveryInputError) throw error.toAppError();
    throw error;
  }
}
