import { expect } from 'vitest';
import { parseXml, type ApiClient, type ApiResponse } from './client.js';

/** The part of ApiClient the e2e tests send requests through. */
export type GuardedClient = Pick<ApiClient, 'get' | 'request' | 'sendJson' | 'sendXml'>;

/** The card data a test file sends, which no response may echo back. */
export interface ForbiddenCardData {
  /** Long secrets (full PANs, bank numbers): must never appear anywhere in a response body. */
  substrings: readonly string[];
  /** Short secrets (CVVs): must never be a value in a response. */
  values: readonly string[];
}

/** Every scalar of a parsed document, as strings. */
export function leaves(value: unknown, out: string[] = []): string[] {
  if (value === null || value === undefined) return out;
  if (typeof value === 'object') {
    for (const child of Object.values(value as Record<string, unknown>)) leaves(child, out);
    return out;
  }
  out.push(String(value));
  return out;
}

export interface CardDataGuard {
  /** No full PAN, bank number or CVV in a body, whatever its status or format. */
  assertNoCardData(res: ApiResponse): void;
  /** The same client, checking every response for card data. */
  guard(client: ApiClient): GuardedClient;
}

export function cardDataGuard(forbidden: ForbiddenCardData): CardDataGuard {
  function assertNoCardData(res: ApiResponse): void {
    for (const secret of forbidden.substrings) expect(res.text, `card data ${secret} in a response`).not.toContain(secret);
    let parsed: unknown = res.text;
    const trimmed = res.text.trim();
    if (trimmed.startsWith('<')) parsed = parseXml(res.text);
    else if (trimmed.startsWith('{')) parsed = JSON.parse(res.text);
    const values = leaves(parsed);
    for (const secret of forbidden.values) expect(values, `card data ${secret} in a response`).not.toContain(secret);
  }

  function guard(client: ApiClient): GuardedClient {
    const checked = async (pending: Promise<ApiResponse>): Promise<ApiResponse> => {
      const res = await pending;
      assertNoCardData(res);
      return res;
    };
    return {
      get: (path, options) => checked(client.get(path, options)),
      request: (method, path, options) => checked(client.request(method, path, options)),
      sendJson: (method, path, document, options) => checked(client.sendJson(method, path, document, options)),
      sendXml: (method, path, xml, options) => checked(client.sendXml(method, path, xml, options)),
    };
  }

  return { assertNoCardData, guard };
}
