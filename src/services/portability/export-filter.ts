import { z } from 'zod';
import { EXPORTABLE_STATES, type ExportableState, type ExportFilter } from '../../domain/payment-method-export.js';

/** An ISO-8601 date or time, kept as the store compares it (UTC, milliseconds). */
const isoTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/)
  .refine((text) => !Number.isNaN(new Date(text).getTime()))
  .transform((text) => new Date(text).toISOString());

/** `retained,cached` or a list of them. */
const states = z.preprocess(
  (value) => (typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter((item) => item !== '') : value),
  z.array(z.enum(EXPORTABLE_STATES)).max(EXPORTABLE_STATES.length),
);

/** Metadata to match: at most 25 flat keys, scalar values compared as text. */
const metadata = z.record(z.string().min(1).max(50), z.union([z.string().max(500), z.number(), z.boolean()])).refine((value) => Object.keys(value).length <= 25);

/** The filters of an export request (docs/portability.md, "Exporting"): all optional. */
export const exportFilterSchema = z.object({
  storage_state: states.optional(),
  created_from: isoTime.optional(),
  created_to: isoTime.optional(),
  metadata: metadata.optional(),
});

/** An export request: the filters and the recipient's armored OpenPGP public key. */
export const exportRequestSchema = exportFilterSchema.extend({ recipient_public_key: z.unknown().describe("The recipient's armored OpenPGP public key (the file is encrypted to it)") });

export function exportFilterOf(input: z.output<typeof exportFilterSchema>): ExportFilter {
  const storageStates = [...new Set(input.storage_state ?? [])] as ExportableState[];
  return {
    storageStates,
    createdFrom: input.created_from ?? null,
    createdTo: input.created_to ?? null,
    metadata: Object.fromEntries(Object.entries(input.metadata ?? {}).map(([key, value]) => [key, String(value)])),
  };
}
