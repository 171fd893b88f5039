import fs from 'node:fs';
import { z } from 'zod';

/** How a receiver type reaches its destination. */
export type ReceiverProtocol = 'http' | 'sftp';

/** One entry of `receivers_options`: a type a receiver may be created with. */
export interface ReceiverTypeDefinition {
  receiverType: string;
  name: string;
  companyName: string | null;
  /** Fixed hostnames of a named receiver (from the catalog); null when the merchant supplies them. */
  hostnames: string | null;
  protocol: ReceiverProtocol;
  /** A test receiver accepts only test payment methods and may be used in any environment. */
  test: boolean;
}

/**
 * What a type can do, derived from its protocol, for `receivers_options` and for the services
 * that refuse the rest: the catalog advertises exactly what works (docs/wire-compatibility.md).
 */
export function receiverOperations(definition: Pick<ReceiverTypeDefinition, 'protocol'>): { deliver: boolean; export: boolean } {
  return { deliver: definition.protocol === 'http', export: definition.protocol === 'sftp' };
}

/** The types every deployment has. Production types need an activated (production) environment. */
const BUILT_IN: readonly ReceiverTypeDefinition[] = [
  { receiverType: 'test', name: 'Test Receiver', companyName: null, hostnames: null, protocol: 'http', test: true },
  { receiverType: 'http', name: 'HTTP Receiver', companyName: null, hostnames: null, protocol: 'http', test: false },
  { receiverType: 'sftp', name: 'SFTP Receiver', companyName: null, hostnames: null, protocol: 'sftp', test: false },
];

const catalogSchema = z.object({
  receivers: z.array(
    z.object({
      receiver_type: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/),
      name: z.string().min(1).max(200),
      company_name: z.string().max(200).nullish(),
      hostnames: z.string().min(1).max(2000),
      protocol: z.enum(['http', 'sftp']).default('http'),
    }),
  ),
});

/** Thrown when the operator's catalog file cannot be used; the server refuses to start. */
export class ReceiverCatalogError extends Error {
  constructor(message: string) {
    super(`COFFER_RECEIVER_CATALOG: ${message}`);
    this.name = 'ReceiverCatalogError';
  }
}

/**
 * Reads the operator's catalog of named receivers (a JSON file
 * `{"receivers":[{"receiver_type","name","company_name","hostnames","protocol"}]}`).
 * Named receivers are production types with fixed hostnames.
 */
export function loadReceiverCatalog(file: string | null): ReceiverTypeDefinition[] {
  if (file === null) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ReceiverCatalogError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const parsed = catalogSchema.safeParse(raw);
  if (!parsed.success) throw new ReceiverCatalogError(`${file} is not a valid catalog: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const builtIn = new Set(BUILT_IN.map((type) => type.receiverType));
  return parsed.data.receivers.map((entry) => {
    if (builtIn.has(entry.receiver_type)) throw new ReceiverCatalogError(`${entry.receiver_type} is a built-in type`);
    return {
      receiverType: entry.receiver_type,
      name: entry.name,
      companyName: entry.company_name ?? null,
      hostnames: entry.hostnames,
      protocol: entry.protocol,
      test: false,
    };
  });
}

/** Built-in types followed by the catalog's, looked up by `receiver_type`. */
export class ReceiverTypes {
  private readonly byType: Map<string, ReceiverTypeDefinition>;

  constructor(catalog: readonly ReceiverTypeDefinition[] = []) {
    this.byType = new Map([...BUILT_IN, ...catalog].map((definition) => [definition.receiverType, definition]));
  }

  all(): ReceiverTypeDefinition[] {
    return [...this.byType.values()];
  }

  find(receiverType: string): ReceiverTypeDefinition | undefined {
    return this.byType.get(receiverType);
  }
}
