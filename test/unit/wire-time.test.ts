import { describe, expect, it } from 'vitest';
import { encodeXml } from '../../src/http/format/xml-codec.js';
import { WireTime, type Wire, type WireObject } from '../../src/http/format/wire.js';
import { withSigned, TRANSACTION_SIGNED_FIELDS } from '../../src/http/views/callback-payload.js';
import { wireSections } from '../../src/portal/wire-facts.js';

/*
 * Views hold stored timestamps as WireTime, the stored text, where they held the Date parsed from
 * it (docs/benchmarks.md, "Third round"). Every reader of views must print what it printed for that Date; the
 * JSON writer's own tests are in json-writer.test.ts.
 */

const STORED = ['2026-11-24T10:11:12.345Z', '2026-11-24T10:11:12Z', '2024-02-29T23:59:59.999Z', '0000-01-01T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', '2026-11-24T10:11:12+01:00', '2026-11-24 10:11:12', '2026-02-29T00:00:00Z'];

function outcome(run: () => unknown): unknown {
  try {
    return run();
  } catch (error) {
    return `throws ${(error as Error).name}`;
  }
}

const asTime = (stored: string): Wire => new WireTime(stored);
const asDate = (stored: string): Wire => new Date(stored);

describe('stored times in views', () => {
  it('print in XML as the Date parsed from them printed', () => {
    for (const stored of [...STORED, 'not a date']) {
      const tree = (at: (text: string) => Wire): Wire => ({ created_at: at(stored), list: [at(stored)] });
      expect(outcome(() => encodeXml('thing', tree(asTime))), stored).toEqual(outcome(() => encodeXml('thing', tree(asDate))));
    }
  });

  it('sign a callback as the Date parsed from them signed', () => {
    for (const stored of STORED) {
      const view = (at: (text: string) => Wire): WireObject => ({ token: 't', created_at: at(stored), updated_at: at(stored), amount: 100 });
      expect(withSigned(view(asTime), TRANSACTION_SIGNED_FIELDS, 'secret').signed, stored).toEqual(withSigned(view(asDate), TRANSACTION_SIGNED_FIELDS, 'secret').signed);
    }
  });

  it('show in the portal as the Date parsed from them showed', () => {
    for (const stored of [...STORED, 'not a date']) {
      const view = (at: (text: string) => Wire): WireObject => ({ token: 't', created_at: at(stored), response: { updated_at: at(stored) } });
      expect(outcome(() => String(wireSections(view(asTime)))), stored).toEqual(outcome(() => String(wireSections(view(asDate)))));
    }
  });
});
