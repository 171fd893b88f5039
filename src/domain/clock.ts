/** Source of the current time; injected so tests can move it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Storage form of a timestamp: ISO-8601 UTC with milliseconds (sorts as text). */
export function toStoredTime(date: Date): string {
  return date.toISOString();
}
