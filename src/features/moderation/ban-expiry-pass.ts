// The leader's pass that lifts timed bans once they end (and drops rejected comments their
// authors have had a week to see): Moderation.liftExpiredBans, every BAN_EXPIRY_INTERVAL_MS.
import { PeriodicPass } from "../../cluster/periodic-pass.ts";
import { BAN_EXPIRY_INTERVAL_MS, type Moderation } from "./moderation.ts";

export class BanExpiryPass {
  private readonly pass: PeriodicPass;

  constructor(moderation: Moderation) {
    this.pass = new PeriodicPass(() => moderation.liftExpiredBans());
  }

  start(intervalMs = BAN_EXPIRY_INTERVAL_MS): void {
    this.pass.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.pass.stop();
  }

  kick(): void {
    this.pass.kick();
  }
}
