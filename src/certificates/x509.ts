// @peculiar/x509 resolves its ASN.1 schemas through decorator metadata, so the Reflect polyfill
// must be evaluated before the library module is (ES imports run in order).
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

// Node's own WebCrypto, rather than whatever global `crypto` the process happens to have.
x509.cryptoProvider.set(webcrypto as unknown as ReturnType<typeof x509.cryptoProvider.get>);

/** @peculiar/x509, configured: every module of this folder imports the library from here. */
export { x509 };
