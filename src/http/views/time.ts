import { WireTime } from '../format/wire.js';

/**
 * Stored timestamps (ISO text) as the wire encoders print them. The text is kept, not parsed to a
 * Date: the encoders turn canonical text into wire text directly (docs/benchmarks.md, "Stored timestamps stay text").
 */
export function storedDate(value: string): WireTime {
  return new WireTime(value);
}
