import type { Insertable, Selectable, Updateable } from 'kysely';
import type { EnvironmentsTable } from '../schema.js';
import type { CallbackFormat, Environment, EnvironmentPatch, NewEnvironment } from '../../domain/environment.js';
import type { EventType } from '../../domain/event-types.js';

export type EnvironmentRow = Selectable<EnvironmentsTable>;

/** A JSON array column; null stays null (the stored "any" / "every"). */
function listOf<T extends string>(stored: string | null): T[] | null {
  return stored === null || stored === '' ? null : (JSON.parse(stored) as T[]);
}

function originsOf(stored: string | null): string[] | null {
  return stored === null || stored === '' ? null : parseAllowedOrigins(stored);
}

function listColumn(list: readonly string[] | null): string | null {
  return list === null ? null : JSON.stringify(list);
}

export function environmentOf(row: EnvironmentRow): Environment {
  return {
    key: row.key,
    organizationToken: row.organization_token,
    name: row.name,
    production: row.production === 1,
    allowedOrigins: originsOf(row.allowed_origins),
    enhancedIframeSecurity: row.enhanced_iframe_security === 1,
    callbackUrl: row.callback_url,
    // Stored null is the default format (the callback SQL coalesces it the same way).
    callbackFormat: (row.callback_format ?? 'xml') as CallbackFormat,
    callbackEventTypes: listOf<EventType>(row.callback_event_types),
    sealedSigningSecret: row.sealed_signing_secret,
    googlePayMerchantId: row.google_pay_merchant_id ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function newEnvironmentRow(environment: NewEnvironment): Insertable<EnvironmentsTable> {
  return {
    key: environment.key,
    organization_token: environment.organizationToken,
    name: environment.name,
    production: environment.production ? 1 : 0,
    created_at: environment.createdAt,
    updated_at: environment.updatedAt,
  };
}

export function environmentChanges(patch: EnvironmentPatch): Updateable<EnvironmentsTable> {
  const changes: Updateable<EnvironmentsTable> = {};
  if (patch.name !== undefined) changes.name = patch.name;
  if (patch.production !== undefined) changes.production = patch.production ? 1 : 0;
  if (patch.allowedOrigins !== undefined) changes.allowed_origins = listColumn(patch.allowedOrigins);
  if (patch.enhancedIframeSecurity !== undefined) changes.enhanced_iframe_security = patch.enhancedIframeSecurity ? 1 : 0;
  if (patch.googlePayMerchantId !== undefined) changes.google_pay_merchant_id = patch.googlePayMerchantId;
  if (patch.callbackUrl !== undefined) changes.callback_url = patch.callbackUrl;
  if (patch.callbackFormat !== undefined) changes.callback_format = patch.callbackFormat;
  if (patch.callbackEventTypes !== undefined) changes.callback_event_types = listColumn(patch.callbackEventTypes);
  changes.updated_at = patch.updatedAt;
  return changes;
}

/** An environment's stored list (JSON text): [] when none is set (every origin may embed the form). */
function parseAllowedOrigins(stored: string | null): string[] {
  if (stored === null || stored === '') return [];
  const parsed: unknown = JSON.parse(stored);
  return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
}
