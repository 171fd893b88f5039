import { orderedToken, TOKEN_LENGTH } from '../../../domain/tokens.js';
import type { Environment } from '../../../domain/environment.js';
import type { PaymentMethod } from '../../../domain/payment-method.js';
import type { GatewayResponse } from '../../../gateways/kit/index.js';
import type { PaymentMethodPatch } from '../../../store/repositories/payment-methods.repo.js';
import { parseDetails } from '../../payment-method-records.js';
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
  const patch = { storage_state: 'closed', cache_expires_at: null, updated_at: at };
  return applied(known, patch, repos.paymentMethods.updateIfState(environment.key, method.token, ['cached', 'retained', 'used'], patch));
}

/** `retain_on_success` on a succeeded transaction retains a cached method. */
export function retainMethod(repos: PipelineRepos, environment: Environment, method: PaymentMethod, known: Known, at: string): Promise<Known> {
  const patch = { storage_state: 'retained', cache_expires_at: null, updated_at: at };
  return applied(known, patch, repos.paymentMethods.updateIfState(environment.key, method.token, ['cached'], patch));
}

/** A cardholder-initiated stored credential: the network transaction id is kept with the method for later merchant-initiated ones. */
export async function keepNetworkTransactionId(repos: PipelineRepos, environment: Environment, method: PaymentMethod, networkTransactionId: string, at: string): Promise<Known> {
  // Read again under this database transaction: an update since the call began is kept.
  const current = await repos.paymentMethods.find(environment.key, method.token);
  if (current === undefined) return undefined;
  const kept = { ...parseDetails(current), network_transaction_id: networkTransactionId };
  const patch = { details: JSON.stringify(kept), updated_at: at };
  return applied(current, patch, repos.paymentMethods.updateIfState(environment.key, method.token, ['cached', 'retained'], patch));
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
  await repos.paymentMethods.insert({
    token,
    environment_key: environment.key,
    payment_method_type: 'third_party_token',
    storage_state: 'retained',
    test: gateway.onTestGateway ? 1 : 0,
    single_use: 0,
    email: basis.email,
    data: null,
    metadata: null,
    callback_url: null,
    details: JSON.stringify({ third_party_token: response.thirdPartyToken, gateway_type: gateway.gatewayType }),
    created_at: at,
    updated_at: at,
  });
  return token;
}
