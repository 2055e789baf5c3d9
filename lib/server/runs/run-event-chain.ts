/**
 * A run's events, handled one at a time in the order they came. An answer's resume (the status
 * write of its delivery) holds every later event but those that pass it: the worker's lines, which
 * write no status, so the next line is not held behind a commit.
 */
export class RunEventChain {
  private tail: Promise<void> = Promise.resolve();
  private resuming: Promise<void> = Promise.resolve();
  /** `resuming` has settled: an event that waits for it may run at once. */
  private resumed = true;
  /** Work on the chain not yet done. */
  private queued = 0;
  private stopped = false;

  /** `failed`: where a throw of any work goes (the chain goes on). */
  constructor(private readonly failed: (err: unknown) => void) {}

  /**
   * Puts work on the chain. `atOnce`: when nothing is on it (nor a resume it must wait for), the
   * work runs now, in the caller's turn, not a few microtasks later: an answer reaches the worker
   * before the tabs' retraction is written, a worker's line goes to its transaction at once.
   */
  enqueue(work: () => Promise<void> | void, { passesResume = false, atOnce = false } = {}): void {
    const idle = this.queued === 0 && (passesResume || this.resumed);
    this.queued++;
    const left = () => void this.queued--;
    const run = () => (this.stopped ? undefined : work());
    if (atOnce && idle) {
      // The executor runs now; a throw in it reaches `failed` as it is, as on the chain.
      this.tail = new Promise<void>((resolve) => resolve(run())).catch(this.failed).finally(left);
      return;
    }
    this.tail = this.tail
      .then(() => (passesResume ? undefined : this.resuming))
      .then(run)
      .catch(this.failed)
      .finally(left);
  }

  /** Starts a resume now, beside the chain: later work waits for it unless it passes resumes. */
  resume(work: () => Promise<void>): void {
    const resuming = work()
      .catch(this.failed)
      .finally(() => {
        if (this.resuming === resuming) this.resumed = true;
      });
    this.resumed = false;
    this.resuming = resuming;
  }

  /** Nothing more is handled (the server shut down: the next start resumes the run). */
  stop(): void {
    this.stopped = true;
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}
