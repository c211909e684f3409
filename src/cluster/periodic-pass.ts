// A background pass run every interval and on demand (kick), one run at a time: a kick during
// a run runs it once more afterwards. Not started, it does nothing (an API-only instance).
export class PeriodicPass {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;

  /** `run` must not throw. */
  constructor(private readonly run: () => Promise<void>) {}

  /** Whether the pass is started (and not stopped): a long run may check it to end early on stop. */
  get started(): boolean {
    return this.timer !== null;
  }

  /** Runs now (work an earlier process left; unless `runNow` is false) and then every interval. */
  start(intervalMs: number, { runNow = true } = {}): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.kick(), intervalMs);
    this.timer.unref();
    if (runNow) this.kick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Runs soon, e.g. right after a request; a no-op where the pass is not started. */
  kick(): void {
    if (!this.timer) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }
}
