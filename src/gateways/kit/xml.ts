import { XMLBuilder } from 'fast-xml-parser';

/** A value an XML body is built from: elements by name in insertion order, `@_name` keys are attributes. */
export type XmlValue = string | number | boolean | null | undefined | XmlValue[] | { [name: string]: XmlValue };

// suppressBooleanAttributes off: the builder would otherwise write an attribute whose value is
// "true" as a bare name (`<ccAuthService run/>`), which is not well-formed XML.
const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: true, suppressBooleanAttributes: false, format: false });

function prune(value: XmlValue): XmlValue {
  if (Array.isArray(value)) return value.map(prune).filter((item) => item !== undefined && item !== null);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, XmlValue> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (inner === undefined || inner === null) continue;
      out[key] = prune(inner);
    }
    return out;
  }
  return value;
}

/**
 * An XML document with `root` as its element, children in the order the object lists them (order
 * matters to schema-validating gateways). null and undefined fields are left out; text is escaped.
 */
export function xmlDocument(root: string, content: { [name: string]: XmlValue }): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${builder.build({ [root]: prune(content) }) as string}`;
}
