import { receiverOperations, type ReceiverTypeDefinition } from '../../receivers/receiver-types.js';
import { storedCredentials } from '../../services/receiver.service.js';
import type { ReceiverSnapshot } from '../../services/receivers/receiver-transaction-details.js';
import { WireList, type WireObject } from '../format/wire.js';
import { storedDate } from './time.js';

/**
 * A receiver, fields in the order of wire-reference §3.4. Safe credentials echo their value;
 * unsafe ones show only their name. SFTP receivers show the login user and the pinned host key,
 * never the password or private key.
 */
export function receiverView(row: ReceiverSnapshot): WireObject {
  const view: WireObject = {
    receiver_type: row.receiver_type,
    token: row.token,
    hostnames: row.hostnames,
    state: row.state,
    created_at: storedDate(row.created_at),
    updated_at: storedDate(row.updated_at),
    company_name: row.company_name,
    sub_merchant_key: row.sub_merchant_key,
    certificate_token: row.certificate_token,
  };
  if (row.protocol_user !== null) view.protocol = { user: row.protocol_user, host_key: row.host_key };
  view.credentials = new WireList(
    'credential',
    storedCredentials(row).map(
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
