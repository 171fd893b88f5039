import { secretEnvironments } from '../../services/tenancy.service.js';
import { WireList, type WireObject } from '../format/wire.js';
import { storedDate } from './time.js';
import { parseAllowedOrigins } from '../../domain/origins.js';
import type { AccessSecret } from '../../domain/access-secret.js';
import type { Environment } from '../../domain/environment.js';

export function environmentView(row: Environment): WireObject {
  return {
    key: row.key,
    name: row.name,
    production: row.production === 1,
    allowed_origins: new WireList('allowed_origin', parseAllowedOrigins(row.allowed_origins)),
    enhanced_iframe_security: row.enhanced_iframe_security === 1,
    created_at: storedDate(row.created_at),
    updated_at: storedDate(row.updated_at),
  };
}

/** An access secret's metadata; the secret itself only in the response that created it. */
export function accessSecretView(row: AccessSecret, secret?: string): WireObject {
  const scope = secretEnvironments(row);
  const view: WireObject = {
    key: row.key,
    name: row.name,
    role: row.role,
    environment_keys: scope === null ? null : new WireList('environment_key', scope),
  };
  if (secret !== undefined) view.secret = secret;
  view.created_at = storedDate(row.created_at);
  view.updated_at = storedDate(row.updated_at);
  return view;
}
