import { AppError } from '../../domain/errors.js';
import type { GatewayRecord, GatewayService } from '../gateway.service.js';
import { gatewaySupports } from '../transactions/transaction-rules.js';
import type { ChainOperation } from './attempt-chain.js';
import type { Environment } from '../../domain/environment.js';

const ATTRIBUTE = 'retry.gateway_tokens';

/**
 * The backup gateways of a retry chain, checked before anything is persisted (docs/routing-retry.md): each
 * must exist, appear once (the primary included), not be redacted, support the operation, and be
 * a test gateway exactly when the primary is (the same card goes to all of them).
 */
export async function checkedBackups(gateways: GatewayService, environment: Environment, primary: GatewayRecord, tokens: readonly string[], operation: ChainOperation): Promise<GatewayRecord[]> {
  const seen = new Set([primary.row.token]);
  const backups: GatewayRecord[] = [];
  for (const [index, token] of tokens.entries()) {
    // Errors name the backup by its place in the list, never by the token sent (docs/security.md).
    const place = `${ATTRIBUTE}[${index}]`;
    if (seen.has(token)) throw new AppError({ key: 'errors.invalid', attribute: ATTRIBUTE, message: `The gateway of ${place} appears more than once in the retry chain.` });
    seen.add(token);
    const backup = await showBackup(gateways, environment, token, place);
    if (backup.row.state === 'redacted') throw invalid(place, 'is redacted');
    if (backup.definition.test !== primary.definition.test) throw invalid(place, primary.definition.test ? 'is not a test gateway like the primary' : 'is a test gateway but the primary is not');
    if (!gatewaySupports(backup.definition, operation)) throw invalid(place, `does not support ${operation}`);
    backups.push(backup);
  }
  return backups;
}

async function showBackup(gateways: GatewayService, environment: Environment, token: string, place: string): Promise<GatewayRecord> {
  try {
    return await gateways.show(environment, token);
  } catch (error) {
    if (error instanceof AppError && error.status === 404) {
      throw new AppError({ key: 'errors.retry_gateway_not_found', attribute: ATTRIBUTE, message: `Unable to find the retry gateway of ${place}.` });
    }
    throw error;
  }
}

function invalid(place: string, why: string): AppError {
  return new AppError({ key: 'errors.retry_gateway_invalid', attribute: ATTRIBUTE, message: `The retry gateway of ${place} ${why}.` });
}
