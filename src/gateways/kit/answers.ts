import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { z } from 'zod';
import { GatewayFaultError } from './contract.js';
import type { OutboundResponse } from './http-client.js';

type JsonObject = Record<string, unknown>;

/** Some gateways (Authorize.Net) start their answers with a UTF-8 byte-order mark. */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * A 5xx is the gateway's fault whatever its body says: nothing to map, counts for the breaker. Only a
 * 503 (Service Unavailable: the server did not handle the request, RFC 9110 §15.6.4) says the payment
 * was not taken; a 500, 502 or 504 may come after the gateway acted on it (docs/routing-retry.md).
 */
export function faultOnServerError(gatewayName: string, response: OutboundResponse): void {
  if (response.status >= 500) throw new GatewayFaultError(`${gatewayName} returned an error.`, `HTTP ${response.status}`, response.status === 503);
}

/** The answer's body as a JSON object; anything else (HTML error page, empty, array) is a fault. */
export function parseJsonAnswer(gatewayName: string, response: OutboundResponse): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(withoutBom(response.body));
  } catch {
    throw new GatewayFaultError(`${gatewayName} returned an unreadable response.`, `HTTP ${response.status}, not JSON`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new GatewayFaultError(`${gatewayName} returned an unexpected response.`, `HTTP ${response.status}, not a JSON object`);
  }
  return parsed as JsonObject;
}

const xmlParser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', removeNSPrefix: true, parseTagValue: false, trimValues: true });

/** The answer's body as parsed XML (values kept as strings, namespace prefixes dropped); not XML is a fault. */
export function parseXmlAnswer(gatewayName: string, response: OutboundResponse): JsonObject {
  const text = withoutBom(response.body).trim();
  if (text === '' || XMLValidator.validate(text) !== true) {
    throw new GatewayFaultError(`${gatewayName} returned an unreadable response.`, `HTTP ${response.status}, not XML`);
  }
  return xmlParser.parse(text) as JsonObject;
}

/**
 * The fields of an answer the adapter relies on, checked against `schema`: unknown fields are
 * ignored (the schema does not list them), a missing or mistyped required one is a fault naming
 * its path, never a crash further on.
 */
export function readAnswer<Schema extends z.ZodType>(gatewayName: string, schema: Schema, value: unknown): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue === undefined || issue.path.length === 0 ? '(answer)' : issue.path.join('.');
  throw new GatewayFaultError(`${gatewayName} returned an unexpected response.`, `${path}: ${issue?.message ?? 'invalid'}`);
}
