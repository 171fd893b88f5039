import * as openpgp from 'openpgp';
import type { ApiClient } from './client.js';
import type { TestServer } from './server.js';

/** Who takes part in an export of `server`'s first environment besides its initial admin secret. */
export interface ExportParties {
  /** A second admin secret: the one dual control needs to approve or reject. */
  second: ApiClient;
  /** A transact secret, which may not touch exports. */
  transact: ApiClient;
  /** The recipient's OpenPGP key pair (the armored public key goes in the request). */
  recipient: { publicKey: string; privateKey: openpgp.PrivateKey };
}

export async function exportParties(server: Pick<TestServer, 'client' | 'core' | 'init'>): Promise<ExportParties> {
  const org = server.init.organization_token;
  const env = server.init.environment_key;
  const admin = await server.core.tenancy.createAccessSecret(org, { name: 'second admin', role: 'admin', environmentKeys: [env] });
  const payments = await server.core.tenancy.createAccessSecret(org, { name: 'payments', role: 'transact', environmentKeys: [env] });
  const generated = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'Recipient', email: 'vault@recipient.example' }], format: 'object' });
  return {
    second: server.client.withAuth({ user: env, password: admin.secret }),
    transact: server.client.withAuth({ user: env, password: payments.secret }),
    recipient: { publicKey: generated.publicKey.armor(), privateKey: generated.privateKey },
  };
}
