/** Stored timestamps (ISO text) as the Date the wire encoders expect. */
export function storedDate(value: string): Date {
  return new Date(value);
}
