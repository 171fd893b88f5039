import { NO_REQUEST, type RequestMeta } from '../../domain/request.js';
import { receiverOperations } from '../../receivers/receiver-types.js';
import { AppError, fieldError, type ErrorEntry } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import { orderedToken, TOKEN_LENGTH } from '../../domain/tokens.js';
import { Scrubber } from '../../domain/scrubbing/scrubber.js';
import { checkTemplate, renderTemplate, TemplateError, TemplateLimitError } from '../../receivers/delivery-template.js';
import { EXPORT_BUDGET, MAX_EXPORT_TOKENS } from '../../receivers/template-limits.js';
import type { EgressGuard } from '../../receivers/egress.js';
import { urlMatchesHostnames } from '../../receivers/hostnames.js';
import type { HttpDeliveryClient } from '../../receivers/http-delivery.js';
import { InvalidSftpUrlError, parseSftpUrl, SftpTransferError, uploadFile } from '../../receivers/sftp-upload.js';
import { exportVariables } from '../../receivers/template-variables.js';
import type { DeliverySubject } from '../../receivers/template-variables.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { Repositories } from '../../store/repositories.js';
import type { PaymentMethodSealer } from '../payment-method-sealer.js';
import { changePaymentMethodIfState } from '../payment-method-changes.js';
import { receiverRedacted, type ReceiverRecord, type ReceiverService } from '../receiver.service.js';
import { failStaleTransactions, newTransaction, PENDING_MESSAGE, recordTransaction, updateTransaction } from '../transaction-records.js';
import { deliveryAccess, openDeliverySubject, sensitiveValuesOf } from './delivery-subject.js';
import { receiverDetailsOf, receiverSnapshot, type ReceiverTransactionDetails } from './receiver-transaction-details.js';
import type { Environment } from '../../domain/environment.js';
import { TransactionState, type Transaction } from '../../domain/transaction.js';

/** The unit-of-work scope of one export: the environment and the API request that started it. */
type ExportScope = { environment: Environment; request: RequestMeta };

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'cardAccess' | 'journal' | 'locks' | 'paymentMethods' | 'transactions';

/** `export{…}` of POST receivers/<t>/export, already coerced. */
export interface ExportInput {
  paymentMethodTokens?: string[] | undefined;
  url?: string | undefined;
  body?: string | undefined;
  callbackUrl?: string | undefined;
}

export interface ExportSettings {
  timeoutMs: number;
  /** The body POSTed to `callback_url` once the export is finished (the transaction in JSON). */
  callbackBody: (transaction: Transaction) => string;
}

/**
 * Batch exports to SFTP receivers. The request records a `pending` ExportPaymentMethods
 * transaction and answers 202; the upload runs after, in this process, and records
 * `succeeded` or `failed` with the payment methods included and excluded; then the result is
 * POSTed to `callback_url`. `drain()` waits for exports under way (graceful shutdown).
 */
export class ReceiverExportService {
  private readonly repos: Pick<Repositories, Uses>;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly receivers: ReceiverService,
    private readonly sealer: PaymentMethodSealer,
    private readonly guard: EgressGuard,
    private readonly callbacks: HttpDeliveryClient,
    private readonly settings: ExportSettings,
    private readonly clock: Clock,
    private readonly onJobError: (error: unknown) => void,
  ) {
    this.repos = store.repos;
  }

  async start(environment: Environment, receiverToken: string, input: ExportInput, request: RequestMeta = NO_REQUEST): Promise<Transaction> {
    const scope: ExportScope = { environment, request };
    const receiver = await this.receivers.show(environment, receiverToken);
    checkInput(input);
    if (!receiverOperations(receiver.definition).export) {
      throw new AppError({ key: 'errors.invalid', attribute: 'receiver_type', message: 'Export sends to SFTP receivers; use deliver for HTTP receivers' });
    }
    if (receiver.row.state === 'redacted') throw receiverRedacted();
    const url = parseUrl(input.url as string, 'url', ['sftp:']);
    try {
      parseSftpUrl(input.url as string);
    } catch (error) {
      if (error instanceof InvalidSftpUrlError) throw new AppError({ key: 'errors.invalid', attribute: 'url', message: `Url is invalid: ${error.message}` });
      throw error;
    }
    if (!urlMatchesHostnames(url, this.receivers.allowedHostnames(receiver))) {
      throw new AppError({ key: 'errors.url_not_allowed', attribute: 'url', message: "The url must match one of the receiver's hostnames (scheme, host and port)." });
    }
    if (input.callbackUrl !== undefined) parseUrl(input.callbackUrl, 'callback_url', ['https:', 'http:']);
    // A template that cannot render, or whose sections over these payment methods would cost more
    // than an export may, is the client's mistake: say so now, before any work, not in the async result.
    try {
      checkTemplate(input.body as string, EXPORT_BUDGET, { payment_methods: new Set(input.paymentMethodTokens).size });
    } catch (error) {
      if (error instanceof TemplateError) throw error.toAppError('body');
      throw error;
    }
    const details: ReceiverTransactionDetails = {
      url: url.toString(),
      deliver_time_ms: null,
      response: null,
      receiver: receiverSnapshot(receiver.row),
      callback_url: input.callbackUrl ?? null,
      payment_methods_included: [],
      payment_methods_excluded: {},
    };
    const row = newTransaction({
      environmentKey: environment.key,
      transactionType: 'ExportPaymentMethods',
      outcome: TransactionState.processing,
      token: orderedToken(TOKEN_LENGTH.item),
      details,
      now: this.clock.now().toISOString(),
    });
    const pending = { ...row, state: TransactionState.pending, messageKey: PENDING_MESSAGE.key, message: PENDING_MESSAGE.text, receiverToken: receiver.row.token };
    await this.store.unitOfWork((repos) => recordTransaction(repos, pending), scope);
    const transaction = (await this.repos.transactions.find(environment.key, row.token)) as Transaction;
    const job = this.run(scope, receiver, transaction, input)
      .catch(this.onJobError)
      .finally(() => this.running.delete(job));
    this.running.add(job);
    return transaction;
  }

  /**
   * Records as failed the exports still `pending` long after any upload and callback could have
   * finished (their node stopped mid-way), so no export stays pending for ever. Safe on every node.
   */
  async failInterrupted(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - 3 * this.settings.timeoutMs - 60_000).toISOString();
    const outcome = {
      messageKey: 'messages.export_interrupted',
      message: 'The export was interrupted before it finished; it may or may not have been uploaded. Run it again.',
      updatedAt: this.clock.now().toISOString(),
    };
    return this.store.unitOfWork((repos) => failStaleTransactions(repos, 'ExportPaymentMethods', cutoff, outcome));
  }

  /** Waits for every export this process has under way. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private async run(scope: ExportScope, receiver: ReceiverRecord, transaction: Transaction, input: ExportInput): Promise<void> {
    const { environment } = scope;
    const started = performance.now();
    const { subjects, excluded } = await this.collect(scope, transaction.token, input.paymentMethodTokens as string[]);
    const included = subjects.map((subject) => subject.token);
    let outcome: { state: TransactionState; messageKey: string; message: string };
    try {
      if (subjects.length === 0) throw new ExportRefusal('None of the payment methods can be exported.');
      const secrets = await this.receivers.openSecrets(receiver.row);
      const content = await renderBody(input.body as string, exportVariables(subjects, secrets.credentials));
      await uploadFile(
        {
          url: input.url as string,
          user: receiver.row.protocolUser ?? '',
          ...(secrets.password === null ? {} : { password: secrets.password.reveal() }),
          ...(secrets.privateKey === null ? {} : { privateKey: secrets.privateKey.reveal() }),
          ...(receiver.row.hostKey === null ? {} : { hostKey: receiver.row.hostKey }),
          timeoutMs: this.settings.timeoutMs,
          resolveHost: async (hostname) => (await this.guard.resolve(hostname)).address,
        },
        Buffer.from(content, 'utf8'),
      );
      outcome = { state: TransactionState.succeeded, messageKey: 'messages.transaction_succeeded', message: 'Succeeded!' };
    } catch (error) {
      // Upload errors are typed and written for clients; they never hold secrets or content.
      // The SFTP server's own status text can be part of it: it goes through the scrubber too.
      const message = Scrubber.of(subjects.flatMap(sensitiveValuesOf)).text(error instanceof Error ? error.message : 'The export failed.');
      // The rename was sent but never answered: the file may be there, as with a gateway timeout.
      outcome =
        error instanceof SftpTransferError && error.finalFileMayExist
          ? { state: TransactionState.resultUnknown, messageKey: 'messages.export_result_unknown', message }
          : { state: TransactionState.failed, messageKey: 'messages.export_failed', message };
    }
    const details = receiverDetailsOf(transaction) as ReceiverTransactionDetails;
    const succeeded = outcome.state === TransactionState.succeeded;
    const patch = {
      state: outcome.state,
      messageKey: outcome.messageKey,
      message: outcome.message,
      succeeded,
      details: { ...details, deliver_time_ms: Math.round(performance.now() - started), payment_methods_included: succeeded ? included : [], payment_methods_excluded: excluded },
      updatedAt: this.clock.now().toISOString(),
    };
    await this.store.unitOfWork((repos) => updateTransaction(repos, transaction, patch), scope);
    if (details.callback_url !== null && details.callback_url !== undefined) await this.callBack(environment, transaction.token, details.callback_url);
  }

  /** Opens every exportable payment method (consuming its CVV); the others are excluded with a reason. */
  private async collect(scope: ExportScope, exportToken: string, tokens: string[]): Promise<{ subjects: DeliverySubject[]; excluded: Record<string, string> }> {
    const { environment } = scope;
    const subjects: DeliverySubject[] = [];
    const excluded: Record<string, string> = {};
    for (const token of new Set(tokens)) {
      const row = await this.store.unitOfWork(async (repos) => {
        await repos.locks.serialize(`payment_method:${token}`);
        const current = await repos.paymentMethods.find(environment.key, token);
        if (current === undefined || !['cached', 'retained'].includes(current.storageState)) return current ?? null;
        await changePaymentMethodIfState(repos, environment.key, token, ['cached', 'retained'], { sealed: { cvv: null }, cvvLength: null, cvvExpiresAt: null, updatedAt: this.clock.now().toISOString() });
        // Opened right after this commits, for this export (docs/audit.md).
        if (current.paymentMethodType === 'credit_card' || current.paymentMethodType === 'bank_account') {
          await repos.cardAccess.record(deliveryAccess(environment, token, 'export', exportToken, scope.request, this.clock.now().toISOString()));
        }
        return current;
      }, scope);
      if (row === null) excluded[token] = 'not_found';
      else if (!['cached', 'retained'].includes(row.storageState)) excluded[token] = row.storageState;
      else {
        const subject = await openDeliverySubject(this.sealer, row);
        if (subject === null) excluded[token] = 'redacted';
        else subjects.push(subject);
      }
    }
    return { subjects, excluded };
  }

  private async callBack(environment: Environment, token: string, callbackUrl: string): Promise<void> {
    const finished = (await this.repos.transactions.find(environment.key, token)) as Transaction;
    await this.callbacks.send({
      url: callbackUrl,
      method: 'POST',
      headers: 'Content-Type: application/json',
      body: this.settings.callbackBody(finished),
      timeoutMs: this.settings.timeoutMs,
      sensitive: [],
    });
  }
}

class ExportRefusal extends Error {}

function checkInput(input: ExportInput): void {
  const errors: ErrorEntry[] = [];
  const tokens = input.paymentMethodTokens ?? [];
  if (tokens.length === 0) errors.push(fieldError.blank('payment_method_tokens'));
  else if (tokens.length > MAX_EXPORT_TOKENS) {
    errors.push({ key: 'errors.invalid', attribute: 'payment_method_tokens', message: `Payment method tokens cannot hold more than ${MAX_EXPORT_TOKENS} tokens in one export` });
  }
  if (input.url === undefined) errors.push(fieldError.blank('url'));
  if (input.body === undefined) errors.push(fieldError.blank('body'));
  if (errors.length > 0) throw new AppError(errors);
}

function parseUrl(text: string, attribute: string, protocols: string[]): URL {
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    url = null;
  }
  if (url === null || !protocols.includes(url.protocol) || url.username !== '' || url.password !== '') {
    throw new AppError({ key: 'errors.invalid', attribute, message: `${attribute === 'url' ? 'Url' : 'Callback url'} must be a ${protocols.map((p) => p.replace(':', '')).join(' or ')} URL` });
  }
  return url;
}

async function renderBody(template: string, variables: object): Promise<string> {
  try {
    return await renderTemplate(template, variables, EXPORT_BUDGET);
  } catch (error) {
    // Variables longer than the checks before the 202 could know (credentials, names) can still overflow.
    if (error instanceof TemplateLimitError) throw new ExportRefusal(`The body is over a template limit: ${error.reason}.`);
    if (error instanceof TemplateError) throw new ExportRefusal('The body is not a valid template.');
    throw error;
  }
}
