import fs from 'node:fs';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import type * as Pkcs11Types from 'pkcs11js';
import { BLOB_NONCE_BYTES, CipherError, blobAad, blobParts, formatBlob } from '../cipher.js';
import { MasterKeyUnavailableError, type MasterKeyProvider } from './provider.js';
import { describeToken, pkcs11MasterKeyId, type Pkcs11Settings } from './pkcs11-settings.js';

type Pkcs11Module = typeof Pkcs11Types;
type Handle = Buffer;

interface Connection {
  lib: Pkcs11Types.PKCS11;
  session: Handle;
  key: Handle;
}

const TAG_BITS = 128;
/** Return codes of a failed GCM open (SoftHSM2 reports a wrong tag as CKR_GENERAL_ERROR). */
const AUTHENTICATION_FAILURES = new Set(['CKR_ENCRYPTED_DATA_INVALID', 'CKR_ENCRYPTED_DATA_LEN_RANGE', 'CKR_GENERAL_ERROR']);

const require = createRequire(import.meta.url);
let binding: Pkcs11Module | null = null;
/** One loaded and initialised library per module path, shared by every provider of the process. */
const libraries = new Map<string, Pkcs11Types.PKCS11>();

/** The native binding, loaded on first use: nodes with another provider never load it. */
function pkcs11js(): Pkcs11Module {
  binding ??= require('pkcs11js') as Pkcs11Module;
  return binding;
}

function library(modulePath: string): Pkcs11Types.PKCS11 {
  const loaded = libraries.get(modulePath);
  if (loaded !== undefined) return loaded;
  const lib = new (pkcs11js().PKCS11)();
  lib.load(modulePath);
  try {
    lib.C_Initialize();
  } catch (error) {
    if (returnCode(error) !== 'CKR_CRYPTOKI_ALREADY_INITIALIZED') throw error;
  }
  libraries.set(modulePath, lib);
  return lib;
}

/** The PKCS#11 return code's name (pkcs11js puts it in the message), or the error's type. */
function returnCode(error: unknown): string {
  if (error instanceof Error) {
    const match = /^CKR_[A-Z_]+/.exec(error.message);
    return match === null ? error.name : match[0];
  }
  return 'unknown error';
}

function readPin(settings: Pkcs11Settings): string {
  if ('value' in settings.pin) return settings.pin.value;
  try {
    return fs.readFileSync(settings.pin.file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new MasterKeyUnavailableError('pkcs11', `cannot read the PIN file ${settings.pin.file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

export interface Pkcs11Options {
  /** After a failed login or lookup, calls fail at once for this long before trying again (a wrong PIN must not lock the token). */
  retryAfterMs?: number;
  now?: () => number;
}

/**
 * The master key is an AES-256 key generated inside a PKCS#11 token (SoftHSM2, a network or cloud
 * HSM): sensitive, not extractable. Data keys are wrapped and unwrapped with AES-GCM inside the
 * token (CKM_AES_GCM, the cipher blob format of ../cipher.ts, a fresh random nonce per wrap).
 *
 * The session is opened on first use and again after it is lost; any failure to reach the key is a
 * `MasterKeyUnavailableError` (503, never a crash). Calls are synchronous, each init/operation pair
 * atomic on the one session: keys are unwrapped once per process and cached by the keyring.
 */
export class Pkcs11MasterKey implements MasterKeyProvider {
  readonly kind = 'pkcs11' as const;
  readonly id: string;
  private connection: Connection | null = null;
  private failure: { error: MasterKeyUnavailableError; until: number } | null = null;
  private readonly retryAfterMs: number;
  private readonly now: () => number;

  constructor(
    private readonly settings: Pkcs11Settings,
    options: Pkcs11Options = {},
  ) {
    this.id = pkcs11MasterKeyId(settings);
    this.retryAfterMs = options.retryAfterMs ?? 5_000;
    this.now = options.now ?? Date.now;
  }

  async wrap(key: Buffer, associatedData: string): Promise<string> {
    const nonce = randomBytes(BLOB_NONCE_BYTES);
    const sealed = this.run((c) => {
      c.lib.C_EncryptInit(c.session, this.gcm(nonce, blobAad(this.id, associatedData)), c.key);
      return c.lib.C_Encrypt(c.session, key, Buffer.alloc(key.length + TAG_BITS / 8));
    });
    return formatBlob(this.id, nonce, sealed);
  }

  async unwrap(wrapped: string, associatedData: string): Promise<Buffer> {
    const parts = blobParts(wrapped, associatedData);
    if (parts.keyId !== this.id) throw new CipherError('wrapped by another master key');
    return this.run((c) => {
        c.lib.C_DecryptInit(c.session, this.gcm(parts.nonce, parts.aad), c.key);
        try {
          return Buffer.from(c.lib.C_Decrypt(c.session, parts.sealed, Buffer.alloc(parts.sealed.length)));
        } catch (error) {
          // Never echo the blob: only that it did not open.
          if (AUTHENTICATION_FAILURES.has(returnCode(error))) throw new CipherError('wrapped key failed authentication in the HSM');
          throw error;
        }
      });
  }

  /** Whether the key can be reached now (for /readyz and the compliance evidence); never throws. */
  reachable(): boolean {
    return this.unavailableReason() === null;
  }

  /** Why the key cannot be reached now (a PKCS#11 return code, never the PIN), or null when it can. */
  unavailableReason(): string | null {
    try {
      this.connect();
      return null;
    } catch (error) {
      return error instanceof MasterKeyUnavailableError ? error.reason : returnCode(error);
    }
  }

  close(): Promise<void> {
    this.disconnect();
    return Promise.resolve();
  }

  /**
   * Generates the master key inside the token (`coffer master-key create-hsm-key`): AES-256,
   * CKA_SENSITIVE, not extractable, usable only to encrypt and decrypt. Refuses when a key with
   * the label exists (a second key of the same label would make the first unreachable).
   */
  static createKey(settings: Pkcs11Settings): string {
    const p = pkcs11js();
    const session = openSession(settings);
    try {
      if (findKey(session.lib, session.handle, settings.keyLabel) !== null) {
        throw new Error(`a key labelled ${JSON.stringify(settings.keyLabel)} already exists on the ${describeToken(settings)}`);
      }
      session.lib.C_GenerateKey(session.handle, { mechanism: p.CKM_AES_KEY_GEN }, [
        { type: p.CKA_CLASS, value: p.CKO_SECRET_KEY },
        { type: p.CKA_KEY_TYPE, value: p.CKK_AES },
        { type: p.CKA_TOKEN, value: true },
        { type: p.CKA_PRIVATE, value: true },
        { type: p.CKA_LABEL, value: settings.keyLabel },
        { type: p.CKA_VALUE_LEN, value: 32 },
        { type: p.CKA_SENSITIVE, value: true },
        { type: p.CKA_EXTRACTABLE, value: false },
        { type: p.CKA_ENCRYPT, value: true },
        { type: p.CKA_DECRYPT, value: true },
        { type: p.CKA_WRAP, value: false },
        { type: p.CKA_UNWRAP, value: false },
        { type: p.CKA_SIGN, value: false },
        { type: p.CKA_VERIFY, value: false },
      ]);
      return pkcs11MasterKeyId(settings);
    } finally {
      session.lib.C_CloseSession(session.handle);
    }
  }

  private gcm(iv: Buffer, aad: Buffer): Pkcs11Types.Mechanism {
    const p = pkcs11js();
    return { mechanism: p.CKM_AES_GCM, parameter: { type: p.CK_PARAMS_AES_GCM, iv, aad, ivBits: iv.length * 8, tagBits: TAG_BITS } as Pkcs11Types.AesGCM };
  }

  /** Runs `operation` on the session; a lost session is opened again once, then the failure is a 503. */
  private run<T>(operation: (connection: Connection) => T): T {
    for (let attempt = 0; ; attempt += 1) {
      const connection = this.connect();
      try {
        return operation(connection);
      } catch (error) {
        if (error instanceof CipherError) throw error;
        // The session may be gone or mid-operation: start again from a new one.
        this.disconnect();
        if (attempt >= 1) throw this.remember(new MasterKeyUnavailableError('pkcs11', `${returnCode(error)} on the ${describeToken(this.settings)}`));
      }
    }
  }

  private connect(): Connection {
    if (this.connection !== null) return this.connection;
    if (this.failure !== null && this.now() < this.failure.until) throw this.failure.error;
    try {
      const session = openSession(this.settings);
      const key = findKey(session.lib, session.handle, this.settings.keyLabel);
      if (key === null) {
        session.lib.C_CloseSession(session.handle);
        throw new MasterKeyUnavailableError('pkcs11', `no key labelled ${JSON.stringify(this.settings.keyLabel)} on the ${describeToken(this.settings)}; create it with coffer master-key create-hsm-key`);
      }
      this.connection = { lib: session.lib, session: session.handle, key };
      this.failure = null;
      return this.connection;
    } catch (error) {
      throw this.remember(error instanceof MasterKeyUnavailableError ? error : new MasterKeyUnavailableError('pkcs11', `${returnCode(error)} on the ${describeToken(this.settings)}`));
    }
  }

  private remember(error: MasterKeyUnavailableError): MasterKeyUnavailableError {
    this.failure = { error, until: this.now() + this.retryAfterMs };
    return error;
  }

  private disconnect(): void {
    const connection = this.connection;
    this.connection = null;
    if (connection === null) return;
    try {
      connection.lib.C_CloseSession(connection.session);
    } catch {
      // Already gone with the token.
    }
  }
}

/** A logged-in read-write session on the configured token. */
function openSession(settings: Pkcs11Settings): { lib: Pkcs11Types.PKCS11; handle: Handle } {
  const p = pkcs11js();
  let lib: Pkcs11Types.PKCS11;
  try {
    lib = library(settings.modulePath);
  } catch (error) {
    throw new MasterKeyUnavailableError('pkcs11', `cannot load the PKCS#11 module ${settings.modulePath} (${returnCode(error)})`);
  }
  const slot = findSlot(lib, settings);
  const pin = readPin(settings);
  const handle = lib.C_OpenSession(slot, p.CKF_RW_SESSION | p.CKF_SERIAL_SESSION);
  try {
    lib.C_Login(handle, p.CKU_USER, pin);
  } catch (error) {
    // Another session of this process logged in to the token already: this one shares it.
    if (returnCode(error) !== 'CKR_USER_ALREADY_LOGGED_IN') {
      lib.C_CloseSession(handle);
      throw error;
    }
  }
  return { lib, handle };
}

function findSlot(lib: Pkcs11Types.PKCS11, settings: Pkcs11Settings): Handle {
  for (const slot of lib.C_GetSlotList(true)) {
    if ('slot' in settings.token) {
      if (slot.length >= 8 && slot.readBigUInt64LE(0) === settings.token.slot) return slot;
      continue;
    }
    if (lib.C_GetTokenInfo(slot).label.trimEnd() === settings.token.label) return slot;
  }
  throw new MasterKeyUnavailableError('pkcs11', `no ${describeToken(settings)} present in ${settings.modulePath}`);
}

function findKey(lib: Pkcs11Types.PKCS11, session: Handle, label: string): Handle | null {
  const p = pkcs11js();
  lib.C_FindObjectsInit(session, [
    { type: p.CKA_CLASS, value: p.CKO_SECRET_KEY },
    { type: p.CKA_LABEL, value: label },
  ]);
  try {
    return lib.C_FindObjects(session);
  } finally {
    lib.C_FindObjectsFinal(session);
  }
}
