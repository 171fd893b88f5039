import type { Insertable, Selectable, Updateable } from 'kysely';
import type { GatewaysTable } from '../schema.js';
import type { Gateway, GatewayPatch, GatewaySettings, GatewayState } from '../../domain/gateway.js';

export type GatewayRow = Selectable<GatewaysTable>;
export type GatewayRowPatch = Omit<Updateable<GatewaysTable>, 'seq' | 'token' | 'environment_key' | 'gateway_type' | 'created_at'>;

/** An empty object is stored as NULL (none), as the service always stored it. */
function objectOrNull(value: object): string | null {
  return Object.keys(value).length === 0 ? null : JSON.stringify(value);
}

/** A row as the domain sees it: `sandbox` a boolean, safe credentials and settings parsed. */
export function gatewayOf(row: GatewayRow): Gateway {
  return {
    token: row.token,
    environmentKey: row.environment_key,
    gatewayType: row.gateway_type,
    description: row.description,
    merchantProfileKey: row.merchant_profile_key,
    subMerchantKey: row.sub_merchant_key,
    sandbox: row.sandbox === 1,
    state: row.state as GatewayState,
    safeCredentials: row.safe_credentials === null ? {} : (JSON.parse(row.safe_credentials) as Record<string, string>),
    sealed: { credentials: row.sealed_credentials },
    settings: row.settings === null ? {} : (JSON.parse(row.settings) as GatewaySettings),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function gatewayRow(gateway: Gateway): Insertable<GatewaysTable> {
  return {
    token: gateway.token,
    environment_key: gateway.environmentKey,
    gateway_type: gateway.gatewayType,
    description: gateway.description,
    merchant_profile_key: gateway.merchantProfileKey,
    sub_merchant_key: gateway.subMerchantKey,
    sandbox: gateway.sandbox ? 1 : 0,
    settings: objectOrNull(gateway.settings),
    state: gateway.state,
    safe_credentials: objectOrNull(gateway.safeCredentials),
    sealed_credentials: gateway.sealed.credentials,
    created_at: gateway.createdAt,
    updated_at: gateway.updatedAt,
  };
}

export function gatewayRowPatch(patch: GatewayPatch): GatewayRowPatch {
  const row: GatewayRowPatch = {};
  if (patch.description !== undefined) row.description = patch.description;
  if (patch.merchantProfileKey !== undefined) row.merchant_profile_key = patch.merchantProfileKey;
  if (patch.subMerchantKey !== undefined) row.sub_merchant_key = patch.subMerchantKey;
  if (patch.sandbox !== undefined) row.sandbox = patch.sandbox ? 1 : 0;
  if (patch.settings !== undefined) row.settings = objectOrNull(patch.settings);
  if (patch.state !== undefined) row.state = patch.state;
  if (patch.safeCredentials !== undefined) row.safe_credentials = objectOrNull(patch.safeCredentials);
  if (patch.sealed !== undefined) row.sealed_credentials = patch.sealed.credentials;
  if (patch.updatedAt !== undefined) row.updated_at = patch.updatedAt;
  return row;
}
