import { XMLParser } from 'fast-xml-parser';

/**
 * Reading and writing the XML documents of the API the way the tests (and the Ruby clients) do.
 * Parsed values are those of `parseXml` in client.ts: attributes under `@_name`, text under `#text`.
 */

/** An API error as both formats carry it. */
export interface ErrorEntry {
  key: string;
  message: string;
  attribute?: string;
}

/** A repeated element as a list: absent or empty is none, one element is a list of one. */
export function asList<T>(value: T | T[] | undefined | ''): T[] {
  if (value === undefined || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

/** Text of an XML leaf as parsed by the client helper: nil → null. */
export function xmlText(node: any): string | null {
  if (node === undefined || node === null) return null;
  if (typeof node === 'string') return node;
  if (node['@_nil'] === 'true') return null;
  return node['#text'] ?? '';
}

export function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The `<error key=".." attribute="..">message</error>` children of a parsed `<errors>` element. */
export function xmlErrorEntries(errors: any): ErrorEntry[] {
  return asList(errors?.error).map((e: any) => ({
    key: e['@_key'],
    message: e['#text'],
    ...(e['@_attribute'] === undefined ? {} : { attribute: e['@_attribute'] }),
  }));
}

const orderedParser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, trimValues: true });

/** Names of the child elements at `path`, in document order. */
export function childOrder(xml: string, ...path: string[]): string[] {
  let nodes = orderedParser.parse(xml) as Array<Record<string, unknown>>;
  for (const name of path) {
    const node = nodes.find((candidate) => name in candidate);
    if (node === undefined) throw new Error(`no <${name}> in ${xml}`);
    nodes = node[name] as Array<Record<string, unknown>>;
  }
  return nodes.map((node) => Object.keys(node).find((key) => key !== ':@') as string);
}
