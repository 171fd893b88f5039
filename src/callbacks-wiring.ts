import type { Clock } from './domain/clock.js';
import { eventView } from './http/views/event.view.js';
import { eventCallback, transactionCallback } from './http/views/callback-payload.js';
import { transactionView } from './http/views/transaction.view.js';
import type { HttpDeliveryClient } from './receivers/http-delivery.js';
import { CallbackDispatcher, DEFAULT_DISPATCH, type CallbackRenderer, type DispatcherSettings } from './services/callbacks/callback-dispatcher.js';
import { SigningSecretService } from './services/callbacks/signing-secret.service.js';
import { CallbackAdminService } from './services/callbacks/callback-admin.service.js';
import type { EventService } from './services/event.service.js';
import type { TransactionQueryService } from './services/transactions/transaction-query.service.js';
import type { StoreAccess } from './store/store-access.js';
import type { Keyring } from './vault/keyring.js';

/** The callbacks part of the core (docs/events.md, "Signed callbacks"). */
export interface CallbacksCore {
  signingSecrets: SigningSecretService;
  callbacks: CallbackDispatcher;
  callbackAdmin: CallbackAdminService;
}

/** Builds the signing secrets and the dispatcher, with payloads rendered by the API's own views. */
export function buildCallbacks(deps: {
  access: StoreAccess;
  keyring: Keyring;
  clock: Clock;
  client: HttpDeliveryClient;
  transactionQuery: TransactionQueryService;
  events: EventService;
  timeoutMs: number;
  /** Overrides of DEFAULT_DISPATCH (tests, drills). */
  dispatch?: Partial<Omit<DispatcherSettings, 'timeoutMs'>>;
}): CallbacksCore {
  const { access, keyring, clock, client, transactionQuery } = deps;
  const repos = access.repos;
  const signingSecrets = new SigningSecretService(access, keyring, clock);
  const render: CallbackRenderer = async (delivery, event, secret) => {
    if (delivery.kind === 'event') return eventCallback(delivery.format, eventView(event), secret);
    const environment = await repos.environments.find(delivery.environmentKey);
    const transaction = await repos.transactions.find(delivery.environmentKey, event.objectKey);
    if (environment === undefined || transaction === undefined) return null;
    const page = await transactionQuery.withPaymentMethods(environment, [transaction]);
    const view = transactionView(transaction, (token) => (token === null ? null : (page.paymentMethods.get(token) ?? null)));
    return transactionCallback(delivery.format, { ...view, callback_url: transaction.callbackUrl }, secret);
  };
  const callbacks = new CallbackDispatcher(access, (request) => client.send(request), (key) => signingSecrets.secretFor(key), render, clock, {
    ...DEFAULT_DISPATCH,
    ...deps.dispatch,
    timeoutMs: deps.timeoutMs,
  });
  return { signingSecrets, callbacks, callbackAdmin: new CallbackAdminService(access, deps.events, clock) };
}
