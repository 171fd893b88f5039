import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { decodeXml } from '../../src/http/format/xml-codec.js';
import { checkXmlSize, xmlBoundsFor, type XmlBounds } from '../../src/http/format/xml-size.js';

/** The refusal's message, or null when the body is within `bounds`. */
function refusal(text: string, bounds: XmlBounds): string | null {
  try {
    checkXmlSize(text, bounds);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(413);
    return (error as AppError).entries[0]?.message ?? '';
  }
}

const small: XmlBounds = { elements: 5, attributes: 3, attributesPerElement: 2 };

describe('XML counted before it is parsed', () => {
  it('scales with the route: one element per 32 bytes, never fewer than 64', () => {
    expect(xmlBoundsFor(16 * 1024)).toEqual({ elements: 512, attributes: 512, attributesPerElement: 16 });
    expect(xmlBoundsFor(1024 * 1024).elements).toBe(32_768);
    expect(xmlBoundsFor(1024).elements).toBe(64);
  });

  it('counts start tags and empty-element tags, not end tags, declarations, comments, CDATA or instructions', () => {
    const text = '<?xml version="1.0"?><a><!-- <b><c><d><e><f> --><b/><![CDATA[<x><y><z><w>]]><c></c><?pi <p><q>?><d></d></a>';
    expect(refusal(text, { ...small, elements: 4 })).toBeNull();
    expect(refusal(text, { ...small, elements: 3 })).toBe('The request body has more than 3 XML elements.');
  });

  it('counts attributes by their `=` outside quoted values', () => {
    expect(refusal('<a x="1=2>3" y=\'4\'><b z="="/></a>', small)).toBeNull();
    expect(refusal('<a x="1" y="2" z="3"/>', small)).toBe('The request body has an XML element with more than 2 attributes.');
    expect(refusal('<a x="1" y="2"><b x="1" y="2"/></a>', small)).toBe('The request body has more than 3 XML attributes.');
  });

  it('stops at a document cut short, leaving the refusal to the parser', () => {
    expect(refusal('<a><b x="unterminated', small)).toBeNull();
    expect(refusal('<a><!-- never closed <b><c><d><e><f><g>', small)).toBeNull();
  });

  it('refuses before fast-xml-parser sees anything', () => {
    const validate = vi.spyOn(XMLValidator, 'validate');
    const parse = vi.spyOn(XMLParser.prototype, 'parse');
    try {
      const many = `<payment_method>${'<a/>'.repeat(600)}</payment_method>`;
      expect(() => decodeXml(many, xmlBoundsFor(16 * 1024))).toThrow('The request body has more than 512 XML elements.');
      const attributes = `<payment_method><m ${Array.from({ length: 100_000 }, (_, index) => `a${index}="1"`).join(' ')}/></payment_method>`;
      expect(() => decodeXml(attributes, xmlBoundsFor(1024 * 1024))).toThrow('The request body has an XML element with more than 16 attributes.');
      expect(validate).not.toHaveBeenCalled();
      expect(parse).not.toHaveBeenCalled();
      // Within the bounds the same document is parsed as before.
      expect(decodeXml('<payment_method><email type="string">a@example.com</email></payment_method>', xmlBoundsFor(16 * 1024)).fields).toEqual({ email: 'a@example.com' });
      expect(validate).toHaveBeenCalledTimes(1);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      validate.mockRestore();
      parse.mockRestore();
    }
  });
});
