/**
 * What a batch consumer has waiting, taken in stream order: `take()` hands
 * over everything already delivered (up to `maxSize`) as soon as there is
 * at least one message, and never waits for a batch to fill, so a quiet
 * stream costs no latency and a busy one forms batches by itself (they
 * fill while the previous batch is being applied). At most `maxSize`
 * messages wait here; beyond that the source is not read, so JetStream's
 * pull (bounded by the consumer's max_messages) stops too.
 */
export class WaitingBatches<M> {
  private readonly queue: M[] = [];
  private ended = false;
  private failure: unknown;
  private wake: (() => void) | undefined;
  private room: (() => void) | undefined;

  constructor(
    source: AsyncIterable<M>,
    private readonly maxSize: number,
  ) {
    void this.pump(source);
  }

  private async pump(source: AsyncIterable<M>): Promise<void> {
    try {
      for await (const message of source) {
        this.queue.push(message);
        this.signal('wake');
        while (this.queue.length >= this.maxSize) await new Promise<void>((resolve) => (this.room = resolve));
      }
    } catch (error) {
      this.failure = error;
    } finally {
      this.ended = true;
      this.signal('wake');
    }
  }

  private signal(which: 'wake' | 'room'): void {
    const resolve = this[which];
    this[which] = undefined;
    resolve?.();
  }

  /** The messages waiting, oldest first, once there is one; undefined when the source has ended and all were taken. */
  async take(): Promise<M[] | undefined> {
    if (this.queue.length === 0) {
      while (this.queue.length === 0) {
        if (this.ended) {
          if (this.failure !== undefined) throw this.failure;
          return undefined;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
      // Woken by the first of several messages that arrived together: the rest reach the queue within this turn of
      // the event loop, one microtask each, so the batch waits for them (never for messages still on the wire).
      await new Promise((resolve) => setImmediate(resolve));
    }
    const batch = this.queue.splice(0, this.maxSize);
    this.signal('room');
    return batch;
  }
}
