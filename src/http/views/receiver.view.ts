import { receiverOperations, type ReceiverTypeDefinition } from '../../receivers/receiver-types.js';
import type { ReceiverSnapshot } from '../../domain/receiver.js';
import { WireList, type WireObject } from '../format/wire.js';
import { storedDate } from './time.js';

/**
 * A receiver, fields in the order of wire-reference §3.4. Safe credentials echo their value;
 * unsafe ones show only their name. SFTP receivers show the login user and the pinned host key,
 * never the password or private key.
 */
export function receiverView(row: ReceiverSnapshot): WireObject {
  const view: WireObject = {
    receiver_type: row.receiverType,
    token: row.token,
    hostnames: row.hostnames.join(','),
    state: row.state,
    created_at: storedDate(row.createdAt),
    updated_at: storedDate(row.updatedAt),
    company_name: row.companyName,
    sub_merchant_key: row.subMerchantKey,
    certificate_token: row.certificateToken,
  };
  if (row.protocolUser !== null) view.protocol = { user: row.protocolUser, host_key: row.hostKey };
  view.credentials = new WireList(
    'credential',
    row.credentials.map(
      (credential): WireObject => (credential.safe ? { name: credential.name, value: credential.value ?? null, safe: true } : { name: credential.name, safe: false }),
    ),
  );
  return view;
}

/** One entry of `receivers_options` (wire-reference §2.6). */
export function receiverOptionView(definition: ReceiverTypeDefinition): WireObject {
  return {
    name: definition.name,
    receiver_type: definition.receiverType,
    hostnames: definition.hostnames,
    company_name: definition.companyName,
    protocol: definition.protocol,
    // Coffer's addition: which of deliver and export this type supports (only what works).
    supports_deliver: receiverOperations(definition).deliver,
    supports_export: receiverOperations(definition).export,
    test: definition.test,
  };
}
