/** One durable commit: how long it took and how many requests' writes it carried. */
export interface CommitSample {
  /** From the COMMIT statement sent to the store's acknowledgement (the fsync included), in seconds. */
  seconds: number;
  /** Transactions made durable by this commit: 1 per commit today; a group commit publishes its batch. */
  batchSize: number;
}

/** Where commit samples can be listened to (the metrics; the bench reads them from there). */
export interface CommitSubscription {
  /** Calls `listener` after each commit; returns the unsubscribe function. */
  subscribe(listener: (sample: CommitSample) => void): () => void;
}

/**
 * The store's commit feed. Publishing costs one array walk when someone listens and nothing
 * otherwise; a listener that throws is dropped from this sample, never from the commit (the
 * transaction is already durable when it is told).
 */
export class CommitFeed implements CommitSubscription {
  private listeners: ReadonlyArray<(sample: CommitSample) => void> = [];

  subscribe(listener: (sample: CommitSample) => void): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((existing) => existing !== listener);
    };
  }

  publish(sample: CommitSample): void {
    for (const listener of this.listeners) {
      try {
        listener(sample);
      } catch {
        // A broken observer must not turn a durable commit into a failed request.
      }
    }
  }

  /** Times `commit` and publishes one sample of `batchSize` once it has succeeded. */
  async timed(batchSize: number, commit: () => Promise<void>): Promise<void> {
    const started = performance.now();
    await commit();
    if (this.listeners.length > 0) this.publish({ seconds: (performance.now() - started) / 1000, batchSize });
  }
}
