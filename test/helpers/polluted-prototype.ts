/**
 * Runs `check` while Object.prototype has an enumerable field `polluted` (what a prototype-polluting
 * dependency would leave), then removes it, also when `check` throws. The response writers walk
 * plain objects with for-in, which would list such a field.
 */
export function withPollutedObjectPrototype(check: () => void): void {
  Object.defineProperty(Object.prototype, 'polluted', { value: 'no', enumerable: true, configurable: true, writable: true });
  try {
    check();
  } finally {
    delete (Object.prototype as Record<string, unknown>).polluted;
  }
}
