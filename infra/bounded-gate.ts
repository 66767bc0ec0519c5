/**
 * At most `concurrency` tasks at once and at most `queueLimit` waiting; a task beyond both is
 * refused at once (`run` answers null) instead of queueing without bound. For CPU-bound work on
 * the libuv pool (password hashing), where an unbounded queue turns a flood into an outage.
 */
export class BoundedGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly queueLimit: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T | null> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queueLimit) return null;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `running` only drops when nobody waits.
      if (next) next();
      else this.running -= 1;
    }
  }
}
