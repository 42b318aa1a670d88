import { AppError } from '@esim/errors';

/**
 * Bounds the work of hashing passwords (§3): at most `concurrency` scrypt
 * runs at once and `queueMax` waiting; anything beyond is refused at once
 * with UNAVAILABLE instead of queueing, so a flood of logins (real or with
 * made-up e-mails) costs a bounded amount of CPU and memory and answers
 * 503 quickly, and the libuv threads stay free for the rest of the service.
 */
export class HashingPool {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly concurrency: number,
    readonly queueMax: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queueMax) throw new AppError('UNAVAILABLE', 'Password checks are saturated; retry in a moment.');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, so `running` never exceeds the bound.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
