import { orderedToken, TOKEN_LENGTH } from '../../../domain/tokens.js';
import type { Environment } from '../../../domain/environment.js';
import type { PaymentMethod, PaymentMethodPatch } from '../../../domain/payment-method.js';
import type { GatewayResponse } from '../../../gateways/kit/index.js';
import { addPaymentMethod, changePaymentMethodIfState } from '../../payment-method-changes.js';
import type { PipelineRepos } from './pipeline-types.js';

/**
 * What a succeeded (or account-closing) call changes on its payment method, each step written
 * conditionally. Each step takes the method as the transaction's writes have left it so far
 * (`known`; undefined once that is not known) and returns it after its own write.
 */

type Known = PaymentMethod | undefined;

/** `known` after a conditional write of `patch`: patched when the write applied, unknown when it did not. */
async function applied(known: Known, patch: PaymentMethodPatch, write: Promise<boolean>): Promise<Known> {
  const changed = await write;
  return changed && known !== undefined ? ({ ...known, ...patch } as PaymentMethod) : undefined;
}

/** The gateway said the account is closed: the method is closed. */
export function closeMethod(repos: PipelineRepos, environment: Environment, method: PaymentMethod, known: Known, at: string): Promise<Known> {
  const patch = { storageState: 'closed' as const, cacheExpiresAt: null, updatedAt: at };
  return applied(known, patch, changePaymentMethodIfState(repos, environment.key, method.token, ['cached', 'retained', 'used'], patch));
}

/** `retain_on_success` on a succeeded transaction retains a cached method. */
export function retainMethod(repos: PipelineRepos, environment: Environment, method: PaymentMethod, known: Known, at: string): Promise<Known> {
  const patch = { storageState: 'retained' as const, cacheExpiresAt: null, updatedAt: at };
  return applied(known, patch, changePaymentMethodIfState(repos, environment.key, method.token, ['cached'], patch));
}

/** A cardholder-initiated stored credential: the network transaction id is kept with the method for later merchant-initiated ones. */
export async function keepNetworkTransactionId(repos: PipelineRepos, environment: Environment, method: PaymentMethod, networkTransactionId: string, at: string): Promise<Known> {
  // Read again under this database transaction: an update since the call began is kept.
  const current = await repos.paymentMethods.find(environment.key, method.token);
  if (current === undefined) return undefined;
  const kept = { ...current.details, network_transaction_id: networkTransactionId };
  const patch = { details: kept, updatedAt: at };
  return applied(current, patch, changePaymentMethodIfState(repos, environment.key, method.token, ['cached', 'retained'], patch));
}

/** A succeeded Store: the gateway's token is vaulted as a new third-party method; its token. */
export async function vaultThirdPartyToken(
  repos: PipelineRepos,
  environment: Environment,
  basis: PaymentMethod,
  response: Pick<GatewayResponse, 'thirdPartyToken'> & { thirdPartyToken: string },
  gateway: { onTestGateway: boolean; gatewayType: string },
  at: string,
): Promise<string> {
  const token = orderedToken(TOKEN_LENGTH.item);
  await addPaymentMethod(repos, {
    token,
    environmentKey: environment.key,
    paymentMethodType: 'third_party_token',
    storageState: 'retained',
    test: gateway.onTestGateway,
    singleUse: false,
    email: basis.email,
    data: null,
    metadata: null,
    callbackUrl: null,
    details: { third_party_token: response.thirdPartyToken, gateway_type: gateway.gatewayType },
    createdAt: at,
    updatedAt: at,
  });
  return token;
}
