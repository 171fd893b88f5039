import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/client.js';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';
import { startCustodyNode, type CustodyNode } from '../helpers/custody-node.js';
import { SOFTHSM_MODULE, startSoftHsm, type SoftHsm, describeWithSoftHsm } from '../helpers/softhsm.js';
import { tempDir } from '../helpers/temp.js';
import { Pkcs11MasterKey } from '../../src/vault/master-key-providers/pkcs11.js';
import type { MasterKeyProvider } from '../../src/vault/master-key-providers/provider.js';
import type { InitResult } from '../../src/services/tenancy.service.js';

/*
 * `coffer master-key rotate --to` (docs/key-custody.md, "Moving between providers"): file → pkcs11
 * and back, while a node keeps serving; an interrupted move resumes; only wrapped keys change,
 * no card blob is re-encrypted; a node with COFFER_MASTER_KEY_PREVIOUS_PROVIDER reads both.
 */

const PIN = '161803';
const VISA = '4111111111111111';

/** A provider that fails after `wraps` wraps: an interrupted move. */
function failingAfter(target: MasterKeyProvider, wraps: number): MasterKeyProvider {
  let left = wraps;
  return {
    kind: target.kind,
    get id() {
      return target.id;
    },
    wrap: (key, associatedData) => {
      if (left <= 0) return Promise.reject(new Error('interrupted'));
      left -= 1;
      return target.wrap(key, associatedData);
    },
    unwrap: (wrapped, associatedData) => target.unwrap(wrapped, associatedData),
    close: () => target.close(),
  };
}

describeWithSoftHsm('moving the master key between providers (file ⇄ pkcs11, SQLite)', () => {
  let hsm: SoftHsm;
  let data: { dir: string; cleanup: () => void };
  let fileEnv: Record<string, string>;
  let pkcs11Env: Record<string, string>;
  let credentials: InitResult;
  let gateway: string;
  let card: string;

  const purchase = (client: ApiClient) =>
    client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: card, amount: 100, currency_code: 'USD' } });
  const wrappedBy = async (node: CustodyNode) =>
    (await node.core.store.db.selectFrom('wrapped_keys').select(['id', 'master_key_id']).orderBy('id').execute()).map((row) => row.master_key_id);
  const sealedNumber = async (node: CustodyNode) =>
    (await node.core.store.db.selectFrom('payment_methods').select('sealed_number').where('token', '=', card).executeTakeFirstOrThrow()).sealed_number;

  beforeAll(async () => {
    hsm = startSoftHsm([{ label: 'coffer-rotate', pin: PIN }]);
    data = tempDir();
    const hsmVars = { COFFER_PKCS11_MODULE: SOFTHSM_MODULE, COFFER_PKCS11_TOKEN_LABEL: 'coffer-rotate', COFFER_PKCS11_PIN_FILE: hsm.pinFile(PIN) };
    fileEnv = { COFFER_DATA_DIR: data.dir, COFFER_MASTER_KEY_PROVIDER: 'file', ...hsmVars };
    pkcs11Env = { COFFER_DATA_DIR: data.dir, COFFER_MASTER_KEY_PROVIDER: 'pkcs11', ...hsmVars };
    Pkcs11MasterKey.createKey({ modulePath: SOFTHSM_MODULE, token: { label: 'coffer-rotate' }, pin: { value: PIN }, keyLabel: 'coffer-master-key' });
    const node = await startCustodyNode(fileEnv);
    try {
      credentials = await node.core.tenancy.init();
      const client = node.client(credentials);
      gateway = await createTestGateway(client);
      card = (await addPaymentMethod(client, { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: VISA, month: 3, year: 2035 }, retained: true })).payment_method.token;
      expect((await purchase(client)).status).toBe(200);
    } finally {
      await node.close();
    }
  });
  afterAll(() => {
    data.cleanup();
    hsm.cleanup();
  });

  it('file → pkcs11 while a node serves; an interrupted move resumes; no card re-encrypted', async () => {
    const serving = await startCustodyNode(fileEnv);
    const rotator = await startCustodyNode(fileEnv);
    try {
      const client = serving.client(credentials);
      expect((await purchase(client)).status).toBe(200);
      const blobBefore = await sealedNumber(rotator);
      const fileId = rotator.core.custody.provider.id;
      const target = (await rotator.core.custody.open('pkcs11')).provider;
      const total = (await wrappedBy(rotator)).length;
      expect(total).toBeGreaterThanOrEqual(3);

      // Interrupted after one key: it is on the HSM key, the rest still on the file key.
      await expect(rotator.core.keyRotation.moveMasterKey(failingAfter(target, 1))).rejects.toThrow('interrupted');
      // Half done is not met until the move is run again.
      expect((await rotator.core.compliance.report()).requirements.find((finding) => finding.title === 'Master key rotated')).toMatchObject({ status: 'not_met' });
      const midway = await wrappedBy(rotator);
      expect(midway.filter((id) => id === target.id)).toHaveLength(1);
      expect(midway.filter((id) => id === fileId)).toHaveLength(total - 1);
      // The serving node keeps serving throughout (its keys are unwrapped in memory).
      expect((await purchase(client)).status).toBe(200);

      // A node restarted midway on the new provider reads both with the old one as previous.
      const between = await startCustodyNode({ ...pkcs11Env, COFFER_MASTER_KEY_PREVIOUS_PROVIDER: 'file' });
      try {
        expect((await purchase(between.client(credentials))).status).toBe(200);
      } finally {
        await between.close();
      }

      // Run again: it resumes, moving only what is left.
      expect(await rotator.core.keyRotation.moveMasterKey(target)).toEqual({ rewrapped: total - 1, remaining: 0 });
      expect(await rotator.core.keyRotation.moveMasterKey(target)).toEqual({ rewrapped: 0, remaining: 0 });
      expect(new Set(await wrappedBy(rotator))).toEqual(new Set([target.id]));

      // Each run is recorded, the interrupted one with what it moved and why it stopped, and the
      // compliance report names the latest (docs/key-custody.md, "Rotation record").
      const runs = await rotator.core.keyRotation.history();
      expect(runs.map(({ kind, toProvider, toMasterKeyId, rewrapped, remaining, outcome, problem }) => ({ kind, toProvider, toMasterKeyId, rewrapped, remaining, outcome, problem }))).toEqual([
        { kind: 'move', toProvider: 'pkcs11', toMasterKeyId: target.id, rewrapped: 0, remaining: 0, outcome: 'completed', problem: null },
        { kind: 'move', toProvider: 'pkcs11', toMasterKeyId: target.id, rewrapped: total - 1, remaining: 0, outcome: 'completed', problem: null },
        { kind: 'move', toProvider: 'pkcs11', toMasterKeyId: target.id, rewrapped: 1, remaining: total - 1, outcome: 'interrupted', problem: 'interrupted' },
      ]);
      expect(runs[2]?.fromMasterKeyIds).toEqual([fileId]);
      expect(runs[1]?.fromMasterKeyIds).toEqual([fileId]);
      const report = await rotator.core.compliance.report();
      expect(report.key_management.last_master_key_rotation).toMatchObject({ kind: 'move', to_provider: 'pkcs11', rewrapped: 0, remaining: 0, outcome: 'completed' });
      expect(report.requirements.find((finding) => finding.title === 'Master key rotated')).toMatchObject({ requirement: '3.7.4', status: 'met' });
      expect(await sealedNumber(rotator)).toBe(blobBefore);
      expect((await purchase(client)).status).toBe(200);
    } finally {
      await rotator.close();
      await serving.close();
    }
    // The move done, the file key opens nothing: a node on it refuses to start.
    await expect(startCustodyNode(fileEnv)).rejects.toThrow(/does not match the master key/);
    const hsmNode = await startCustodyNode(pkcs11Env);
    try {
      expect((await purchase(hsmNode.client(credentials))).status).toBe(200);
    } finally {
      await hsmNode.close();
    }
  });

  it('pkcs11 → file, and the node on the file key decrypts again', async () => {
    // A fresh local key file: the move back makes it.
    fs.rmSync(path.join(data.dir, 'master.key'));
    const rotator = await startCustodyNode(pkcs11Env);
    let fileId: string;
    try {
      const target = await rotator.core.custody.open('file');
      expect(target.generatedFile).toBe(path.join(data.dir, 'master.key'));
      fileId = target.provider.id;
      const moved = await rotator.core.keyRotation.moveMasterKey(target.provider);
      expect(moved.remaining).toBe(0);
      expect(moved.rewrapped).toBeGreaterThanOrEqual(3);
    } finally {
      await rotator.close();
    }
    const node = await startCustodyNode(fileEnv);
    try {
      expect(new Set(await wrappedBy(node))).toEqual(new Set([fileId]));
      expect((await purchase(node.client(credentials))).status).toBe(200);
    } finally {
      await node.close();
    }
    await expect(startCustodyNode(pkcs11Env)).rejects.toThrow(/does not match the master key/);
  });
});
