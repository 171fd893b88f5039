import { WireList, type WireObject } from '../format/wire.js';
import { storedDate } from './time.js';
import type { AccessSecret } from '../../domain/access-secret.js';
import type { Environment } from '../../domain/environment.js';

export function environmentView(row: Environment): WireObject {
  return {
    key: row.key,
    name: row.name,
    production: row.production,
    allowed_origins: new WireList('allowed_origin', row.allowedOrigins ?? []),
    enhanced_iframe_security: row.enhancedIframeSecurity,
    google_pay_merchant_id: row.googlePayMerchantId,
    created_at: storedDate(row.createdAt),
    updated_at: storedDate(row.updatedAt),
  };
}

/** An access secret's metadata; the secret itself only in the response that created it. */
export function accessSecretView(row: AccessSecret, secret?: string): WireObject {
  const scope = row.environmentKeys;
  const view: WireObject = {
    key: row.key,
    name: row.name,
    role: row.role,
    environment_keys: scope === null ? null : new WireList('environment_key', scope),
  };
  if (secret !== undefined) view.secret = secret;
  view.created_at = storedDate(row.createdAt);
  view.updated_at = storedDate(row.updatedAt);
  return view;
}
