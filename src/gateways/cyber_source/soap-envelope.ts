import { scrubWith, scrubXmlElements, xmlDocument, type XmlValue } from '../kit/index.js';

/**
 * The SOAP 1.1 envelope of CyberSource's Simple Order API (SOAP Toolkit): a WS-Security header with
 * a UsernameToken whose Username is the merchant ID and whose Password is the SOAP Toolkit
 * transaction key, sent as PasswordText (OASIS UsernameToken Profile 1.0), and a body holding one
 * `requestMessage` in the transaction-data namespace of the schema version Coffer speaks.
 * Facts from CyberSource's "SOAP Toolkit API" developer guide and its WSDL/XSD
 * (ics2ws.ic3.com/commerce/1.x/transactionProcessor), and ActiveMerchant's CyberSource adapter.
 */

/** The Simple Order API schema version (CyberSourceTransaction_1.201.xsd) the request is written to. */
export const XSD_VERSION = '1.201';
export const TRANSACTION_NAMESPACE = `urn:schemas-cybersource-com:transaction-data-${XSD_VERSION}`;

const SOAP_ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
const WSSE_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
export const PASSWORD_TEXT = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText';

/** The WSDL's soapAction for runTransaction, the one operation of the service. */
export const SOAP_ACTION = 'runTransaction';

/**
 * The whole envelope. `message` is the content of `requestMessage` after the merchant fields, in
 * schema order (the service validates element order against the XSD).
 */
export function soapEnvelope(merchantId: string, transactionKey: string, message: { [name: string]: XmlValue }): string {
  return xmlDocument('soap:Envelope', {
    '@_xmlns:soap': SOAP_ENVELOPE_NS,
    'soap:Header': {
      'wsse:Security': {
        '@_xmlns:wsse': WSSE_NS,
        '@_soap:mustUnderstand': '1',
        'wsse:UsernameToken': {
          'wsse:Username': merchantId,
          'wsse:Password': { '@_Type': PASSWORD_TEXT, '#text': transactionKey },
        },
      },
    },
    'soap:Body': {
      requestMessage: { '@_xmlns': TRANSACTION_NAMESPACE, merchantID: merchantId, ...message },
    },
  });
}

/**
 * What a CyberSource transcript must not keep: the transaction key (wsse:Password, a SOAP header),
 * the card number, CVN and expiry, and, for the certificate mode other clients use, the binary
 * token and signature values.
 */
export const scrubCyberSourceSoap = scrubWith(
  scrubXmlElements('Password', 'BinarySecurityToken', 'SignatureValue', 'DigestValue', 'accountNumber', 'cvNumber', 'expirationMonth', 'expirationYear', 'cavv', 'xid', 'authenticationData'),
);
