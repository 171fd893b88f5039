import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Receiver, ReceiverCredential, ReceiverPatch, ReceiverState } from '../../domain/receiver.js';
import type { ReceiversTable } from '../schema.js';

/** `hostnames` is kept as one comma-separated column; '' is an empty list. */
function hostnamesOf(column: string): string[] {
  return column === '' ? [] : column.split(',');
}

/** `credentials` is kept as a JSON array, or null when there is none. */
function credentialsOf(column: string | null): ReceiverCredential[] {
  return column === null ? [] : (JSON.parse(column) as ReceiverCredential[]);
}

function credentialsColumn(credentials: readonly ReceiverCredential[]): string | null {
  return credentials.length === 0 ? null : JSON.stringify(credentials);
}

export function receiverOf(row: Selectable<ReceiversTable>): Receiver {
  return {
    token: row.token,
    environmentKey: row.environment_key,
    receiverType: row.receiver_type,
    hostnames: hostnamesOf(row.hostnames),
    state: row.state as ReceiverState,
    companyName: row.company_name,
    subMerchantKey: row.sub_merchant_key,
    credentials: credentialsOf(row.credentials),
    protocolUser: row.protocol_user,
    hostKey: row.host_key,
    certificateToken: row.certificate_token,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    sealed: { credentials: row.sealed_credentials, protocol: row.sealed_protocol },
  };
}

export function receiverRow(receiver: Receiver): Insertable<ReceiversTable> {
  return {
    token: receiver.token,
    environment_key: receiver.environmentKey,
    receiver_type: receiver.receiverType,
    hostnames: receiver.hostnames.join(','),
    state: receiver.state,
    company_name: receiver.companyName,
    sub_merchant_key: receiver.subMerchantKey,
    credentials: credentialsColumn(receiver.credentials),
    sealed_credentials: receiver.sealed.credentials,
    protocol_user: receiver.protocolUser,
    sealed_protocol: receiver.sealed.protocol,
    host_key: receiver.hostKey,
    certificate_token: receiver.certificateToken,
    created_at: receiver.createdAt,
    updated_at: receiver.updatedAt,
  };
}

/** The columns a patch sets (only those it names). */
export function receiverPatchRow(patch: ReceiverPatch): Updateable<ReceiversTable> {
  const row: Updateable<ReceiversTable> = {};
  if (patch.hostnames !== undefined) row.hostnames = patch.hostnames.join(',');
  if (patch.state !== undefined) row.state = patch.state;
  if (patch.subMerchantKey !== undefined) row.sub_merchant_key = patch.subMerchantKey;
  if (patch.credentials !== undefined) row.credentials = credentialsColumn(patch.credentials);
  if (patch.protocolUser !== undefined) row.protocol_user = patch.protocolUser;
  if (patch.hostKey !== undefined) row.host_key = patch.hostKey;
  if (patch.certificateToken !== undefined) row.certificate_token = patch.certificateToken;
  if (patch.sealed?.credentials !== undefined) row.sealed_credentials = patch.sealed.credentials;
  if (patch.sealed?.protocol !== undefined) row.sealed_protocol = patch.sealed.protocol;
  row.updated_at = patch.updatedAt;
  return row;
}
