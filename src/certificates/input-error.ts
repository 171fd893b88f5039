/** The request fields whose content this folder reads. */
export type CertificateField = 'pem' | 'private_key';

/**
 * A `pem` or `private_key` that cannot be used. The message is one of this folder's fixed
 * sentences: it never quotes the input (which may be a private key), nor a parser's own words.
 */
export class CertificateInputError extends Error {
  constructor(
    readonly attribute: CertificateField,
    message: string,
  ) {
    super(message);
    this.name = 'CertificateInputError';
  }
}
