import * as asn1js from 'asn1js';

/**
 * The few DER string readings the wallet modules need, without a schema: a certificate
 * extension's value is the DER of a string type, which Apple leaves unspecified beyond its text.
 */
const STRING_TAGS = new Set([0x0c /* UTF8String */, 0x13 /* PrintableString */, 0x16 /* IA5String */]);

function stringOf(der: Buffer): string | null {
  const tag = der[0];
  const first = der[1];
  if (tag === undefined || first === undefined || !STRING_TAGS.has(tag)) return null;
  let length = first;
  let offset = 2;
  if (first & 0x80) {
    const octets = first & 0x7f;
    if (octets === 0 || octets > 2 || der.length < 2 + octets) return null;
    length = der.readUIntBE(2, octets);
    offset = 2 + octets;
  }
  if (offset + length !== der.length) return null;
  return der.subarray(offset).toString('utf8');
}

/** Encodes `text` as a DER UTF8String (the form test certificates carry the merchant id hash in). */
function utf8String(text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  if (body.length > 0xffff) throw new RangeError('string too long');
  const length = body.length < 0x80 ? Buffer.from([body.length]) : body.length < 0x100 ? Buffer.from([0x81, body.length]) : Buffer.from([0x82, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([Buffer.from([0x0c]), length, body]);
}

function children(block: asn1js.AsnType | undefined): asn1js.AsnType[] {
  if (!(block instanceof asn1js.Constructed)) return [];
  return block.valueBlock.value as asn1js.AsnType[];
}

function isContext(block: asn1js.AsnType | undefined, tag: number): boolean {
  return block !== undefined && block.idBlock.tagClass === 3 && block.idBlock.tagNumber === tag;
}

/**
 * The signed attributes of a CMS ContentInfo's first signer exactly as they were encoded
 * ([0] IMPLICIT tag included), or null. The signature covers these bytes (retagged as a SET), so
 * they are read as sent rather than re-encoded from a parsed form.
 */
function signedAttributesOf(contentInfoDer: Buffer): Buffer | null {
  const parsed = asn1js.fromBER(contentInfoDer);
  if (parsed.offset === -1) return null;
  const explicit = children(parsed.result)[1];
  if (!isContext(explicit, 0)) return null;
  const signerInfos = children(children(explicit)[0]).at(-1);
  const signer = children(signerInfos)[0];
  const attributes = children(signer).find((block) => isContext(block, 0));
  return attributes === undefined ? null : Buffer.from(attributes.valueBeforeDecodeView);
}

export const asn1 = { stringOf, utf8String, signedAttributesOf };
