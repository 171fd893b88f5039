import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {
  Attribute,
  CertificateChoices,
  CertificateSet,
  ContentInfo,
  DigestAlgorithmIdentifiers,
  EncapsulatedContentInfo,
  id_data,
  id_signedData,
  IssuerAndSerialNumber,
  SignedData,
  SignerIdentifier,
  SignerInfo,
  SignerInfos,
} from '@peculiar/asn1-cms';
import { id_pkcs9_at_contentType, id_pkcs9_at_messageDigest, id_pkcs9_at_signingTime, SigningTime } from '@peculiar/asn1-pkcs9';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, Certificate } from '@peculiar/asn1-x509';
import * as asn1js from 'asn1js';
import {
  createCipheriv,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  sign,
  webcrypto,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { asn1 } from '../../src/vault/wallets/asn1.js';
import { applePaySymmetricKey } from '../../src/vault/wallets/apple-pay-cipher.js';
import { APPLE_MERCHANT_ID_OID } from '../../src/vault/wallets/apple-pay-merchant-key.js';
import { lengthPrefixed } from '../../src/vault/wallets/google-pay-signature.js';
import { APPLE_PAY_INTERMEDIATE_OID, APPLE_PAY_LEAF_OID } from '../../src/vault/wallets/apple-pay-signature.js';

/**
 * Wallet tokens made the way Apple and Google make them, under test roots of our own: a CA
 * standing in for Apple Root CA - G3 (with Apple's marker extensions on its intermediate and leaf),
 * a root signing key standing in for Google's. Facts from Apple's "Payment Token Format Reference"
 * and Google's "Payment data cryptography" page.
 */

x509.cryptoProvider.set(webcrypto as unknown as ReturnType<typeof x509.cryptoProvider.get>);

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
const SHA256_OID = '2.16.840.1.101.3.4.2.1';
const ECDSA_SHA256_OID = '1.2.840.10045.4.3.2';
/** Apple's marker extensions hold an ASN.1 NULL. */
const NULL_VALUE = new Uint8Array([0x05, 0x00]);

/** SPKI DER of a public key, or of a private key's public half. */
export function spkiOf(key: KeyObject): Buffer {
  return (key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' });
}

function serial(): string {
  return `01${randomBytes(8).toString('hex')}`;
}

async function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

async function nodeKey(key: webcrypto.CryptoKey): Promise<KeyObject> {
  return createPrivateKey({ key: Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key)), format: 'der', type: 'pkcs8' });
}

export interface ApplePayTestCa {
  root: X509Certificate;
  rootPem: string;
  intermediate: x509.X509Certificate;
  leaf: x509.X509Certificate;
  leafKey: KeyObject;
  /** Issues a payment processing certificate for a merchant key, with the merchant id extension. */
  merchantCertificate(publicKey: KeyObject, merchantIdentifier: string): Promise<string>;
}

export interface ApplePayTestCaOptions {
  /** Leave Apple's marker extension off the leaf (a valid chain that is not Apple Pay's). */
  leafWithoutMarker?: boolean;
}

/** A three-level chain like Apple's: root → Apple Application Integration CA → payment token signer. */
export async function createApplePayTestCa(options: ApplePayTestCaOptions = {}): Promise<ApplePayTestCa> {
  const now = Date.now();
  const validity = { notBefore: new Date(now - DAY_MS), notAfter: new Date(now + 365 * DAY_MS), signingAlgorithm: SIGN };
  const rootKeys = await keyPair();
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    ...validity,
    serialNumber: serial(),
    name: 'CN=Test Root CA - G3, O=Coffer Tests',
    keys: rootKeys,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  const intermediateKeys = await keyPair();
  const intermediate = await x509.X509CertificateGenerator.create({
    ...validity,
    serialNumber: serial(),
    subject: 'CN=Test Application Integration CA - G3, O=Coffer Tests',
    issuer: root.subjectName,
    publicKey: intermediateKeys.publicKey,
    signingKey: rootKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
      new x509.Extension(APPLE_PAY_INTERMEDIATE_OID, false, NULL_VALUE),
    ],
  });
  const leafKeys = await keyPair();
  const leaf = await x509.X509CertificateGenerator.create({
    ...validity,
    serialNumber: serial(),
    subject: 'CN=test-ecc-smp-broker-sign, O=Coffer Tests',
    issuer: intermediate.subjectName,
    publicKey: leafKeys.publicKey,
    signingKey: intermediateKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      ...(options.leafWithoutMarker === true ? [] : [new x509.Extension(APPLE_PAY_LEAF_OID, false, NULL_VALUE)]),
    ],
  });
  return {
    root: new X509Certificate(root.toString('pem')),
    rootPem: root.toString('pem'),
    intermediate,
    leaf,
    leafKey: await nodeKey(leafKeys.privateKey),
    async merchantCertificate(publicKey, merchantIdentifier) {
      const idHash = createHash('sha256').update(merchantIdentifier, 'utf8').digest('hex');
      const certificate = await x509.X509CertificateGenerator.create({
        ...validity,
        serialNumber: serial(),
        subject: `CN=${merchantIdentifier}, OU=Apple Pay Payment Processing, O=Coffer Tests`,
        issuer: intermediate.subjectName,
        publicKey: new x509.PublicKey(spkiOf(publicKey)),
        signingKey: intermediateKeys.privateKey,
        extensions: [new x509.Extension(APPLE_MERCHANT_ID_OID, false, asn1.utf8String(idHash))],
      });
      return certificate.toString('pem');
    },
  };
}

/** A merchant's P-256 key pair, as `POST /v1/certificates/generate` with ec-prime256v1 makes it. */
export function merchantKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

/** The decrypted payment data of a 3DSecure token, as Apple's reference lists its keys. */
export function applePayPaymentData(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    applicationPrimaryAccountNumber: '4817499999999994',
    applicationExpirationDate: '291231',
    currencyCode: '840',
    transactionAmount: 1999,
    deviceManufacturerIdentifier: '040010030273',
    paymentDataType: '3DSecure',
    paymentData: { onlinePaymentCryptogram: 'AOWfXu1Iv1pAQwAAAAAAAAAAAAA=', eciIndicator: '7' },
    ...overrides,
  };
}

export interface ApplePayTokenOptions {
  ca: ApplePayTestCa;
  merchantPublicKey: KeyObject;
  merchantIdentifier: string;
  payload?: Record<string, unknown>;
  signingTime?: Date;
  transactionId?: string;
  applicationData?: string;
}

function attribute(type: string, value: ArrayBuffer): Attribute {
  return new Attribute({ attrType: type, attrValues: [value] });
}

/** The detached CMS SignedData Apple puts in `signature`, signed by the CA's leaf. */
function cmsSignature(ca: ApplePayTestCa, content: Buffer, signingTime: Date): Buffer {
  const leaf = AsnConvert.parse(ca.leaf.rawData, Certificate);
  const signer = new SignerInfo({
    version: 1,
    sid: new SignerIdentifier({ issuerAndSerialNumber: new IssuerAndSerialNumber({ issuer: leaf.tbsCertificate.issuer, serialNumber: leaf.tbsCertificate.serialNumber }) }),
    digestAlgorithm: new AlgorithmIdentifier({ algorithm: SHA256_OID }),
    signedAttrs: [
      attribute(id_pkcs9_at_contentType, new asn1js.ObjectIdentifier({ value: id_data }).toBER()),
      attribute(id_pkcs9_at_signingTime, AsnConvert.serialize(new SigningTime(signingTime))),
      attribute(id_pkcs9_at_messageDigest, AsnConvert.serialize(new OctetString(createHash('sha256').update(content).digest()))),
    ],
    signatureAlgorithm: new AlgorithmIdentifier({ algorithm: ECDSA_SHA256_OID }),
    signature: new OctetString(new Uint8Array(0)),
  });
  // The signature covers the attributes as a DER SET (RFC 5652 §5.4): encode the signer, cut out
  // the [0]-tagged attributes, retag them.
  const signerDer = Buffer.from(AsnConvert.serialize(signer));
  const encoded = asn1js.fromBER(signerDer).result as asn1js.Sequence;
  const tagged = (encoded.valueBlock.value as asn1js.AsnType[]).find((block) => block.idBlock.tagClass === 3 && block.idBlock.tagNumber === 0);
  const signedAttributes = Buffer.from((tagged as asn1js.AsnType).valueBeforeDecodeView);
  signedAttributes[0] = 0x31;
  signer.signature = new OctetString(sign('sha256', signedAttributes, ca.leafKey));
  const signedData = new SignedData({
    version: 1,
    digestAlgorithms: new DigestAlgorithmIdentifiers([new AlgorithmIdentifier({ algorithm: SHA256_OID })]),
    encapContentInfo: new EncapsulatedContentInfo({ eContentType: id_data }),
    certificates: new CertificateSet([new CertificateChoices({ certificate: leaf }), new CertificateChoices({ certificate: AsnConvert.parse(ca.intermediate.rawData, Certificate) })]),
    signerInfos: new SignerInfos([signer]),
  });
  return Buffer.from(AsnConvert.serialize(new ContentInfo({ contentType: id_signedData, content: AsnConvert.serialize(signedData) })));
}

/** An `EC_v1` PKPaymentToken.paymentData for the merchant key, as a device would send it. */
export function applePayToken(options: ApplePayTokenOptions): Record<string, unknown> {
  const ephemeral = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const sharedSecret = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: options.merchantPublicKey });
  const merchantIdHash = createHash('sha256').update(options.merchantIdentifier, 'utf8').digest();
  const key = applePaySymmetricKey(sharedSecret, merchantIdHash);
  const cipher = createCipheriv('aes-256-gcm', key, Buffer.alloc(16));
  const plaintext = Buffer.from(JSON.stringify(options.payload ?? applePayPaymentData()), 'utf8');
  const data = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  const ephemeralPublicKey = ephemeral.publicKey.export({ type: 'spki', format: 'der' });
  const transactionId = options.transactionId ?? randomBytes(32).toString('hex');
  const parts = [ephemeralPublicKey, data, Buffer.from(transactionId, 'hex')];
  if (options.applicationData !== undefined) parts.push(Buffer.from(options.applicationData, 'hex'));
  const signature = cmsSignature(options.ca, Buffer.concat(parts), options.signingTime ?? new Date());
  const spki = spkiOf(options.merchantPublicKey);
  return {
    version: 'EC_v1',
    data: data.toString('base64'),
    signature: signature.toString('base64'),
    header: {
      ephemeralPublicKey: ephemeralPublicKey.toString('base64'),
      publicKeyHash: createHash('sha256').update(spki).digest('base64'),
      transactionId,
      ...(options.applicationData === undefined ? {} : { applicationData: options.applicationData }),
    },
  };
}

/** A key pair standing in for one of Google's root signing keys, with its published-format JSON. */
export interface GooglePayTestRoot {
  privateKey: KeyObject;
  /** `{"keys":[...]}` as Google publishes it, this key as the ECv2 entry. */
  keysJson: string;
}

export function createGooglePayTestRoot(expiration = Date.now() + 365 * DAY_MS): GooglePayTestRoot {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const keyValue = spkiOf(publicKey).toString('base64');
  return { privateKey, keysJson: JSON.stringify({ keys: [{ keyValue, protocolVersion: 'ECv2', keyExpiration: String(expiration) }] }) };
}

/** The decrypted message of a CRYPTOGRAM_3DS token, as Google's page lists its fields. */
export function googlePayMessage(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    messageExpiration: String(Date.now() + 7 * DAY_MS),
    messageId: 'AH2EjtfrxzYkTrZw4OvFyEa5kMwYqVVsRvJ-5lT6vBn2tfNnZ2hs',
    paymentMethod: 'CARD',
    paymentMethodDetails: {
      expirationYear: 2030,
      expirationMonth: 12,
      pan: '4895370012003478',
      authMethod: 'CRYPTOGRAM_3DS',
      eciIndicator: '05',
      cryptogram: 'AgAAAAAABk4DWZ4C28yUQAAAAAA=',
    },
    ...overrides,
  };
}

export interface GooglePayTokenOptions {
  root: GooglePayTestRoot;
  merchantPublicKey: KeyObject;
  /** The recipient the message is signed for: `merchant:<id>`. */
  recipientId: string;
  message?: Record<string, unknown>;
  intermediateKeyExpiration?: number;
  /** Change the ciphertext after encryption but before signing (reaches the MAC check). */
  alterCiphertextBeforeSigning?: boolean;
}

function ecdsa(privateKey: KeyObject, data: Buffer): string {
  return sign('sha256', data, privateKey).toString('base64');
}

/** An ECv2 token as Google makes one: root-signed intermediate key, signed and encrypted message. */
export function googlePayToken(options: GooglePayTokenOptions): Record<string, unknown> {
  const intermediate = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const signedKey = JSON.stringify({
    keyValue: spkiOf(intermediate.publicKey).toString('base64'),
    keyExpiration: String(options.intermediateKeyExpiration ?? Date.now() + DAY_MS),
  });
  const ephemeral = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = ephemeral.publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([0x04]), Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]);
  const sharedSecret = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: options.merchantPublicKey });
  const derived = Buffer.from(hkdfSync('sha256', Buffer.concat([point, sharedSecret]), Buffer.alloc(32), Buffer.from('Google'), 64));
  const cipher = createCipheriv('aes-256-ctr', derived.subarray(0, 32), Buffer.alloc(16));
  const encryptedMessage = Buffer.concat([cipher.update(JSON.stringify(options.message ?? googlePayMessage()), 'utf8'), cipher.final()]);
  const tag = createHmac('sha256', derived.subarray(32)).update(encryptedMessage).digest();
  if (options.alterCiphertextBeforeSigning === true) encryptedMessage[0] = (encryptedMessage[0] ?? 0) ^ 0x01;
  const signedMessage = JSON.stringify({
    encryptedMessage: encryptedMessage.toString('base64'),
    ephemeralPublicKey: point.toString('base64'),
    tag: tag.toString('base64'),
  });
  return {
    signature: ecdsa(intermediate.privateKey, lengthPrefixed(['Google', options.recipientId, 'ECv2', signedMessage])),
    intermediateSigningKey: { signedKey, signatures: [ecdsa(options.root.privateKey, lengthPrefixed(['Google', 'ECv2', signedKey]))] },
    protocolVersion: 'ECv2',
    signedMessage,
  };
}
