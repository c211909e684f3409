// Uploads in progress are bounded per client and per instance: each may hold up to its size cap
// in memory while its body is read and sent on, so many at once could exhaust the process.
import { rateLimited } from "../core/errors.ts";
import { UPLOAD_SLOTS } from "../config/limits.ts";

export class UploadSlots {
  private total = 0;
  private readonly byClient = new Map<string, number>();

  /** Takes a slot for the client (429 rate-limited with Retry-After when none is free); returns its release. */
  take(clientIp: string): () => void {
    const held = this.byClient.get(clientIp) ?? 0;
    if (held >= UPLOAD_SLOTS.perClient || this.total >= UPLOAD_SLOTS.perInstance)
      throw rateLimited(UPLOAD_SLOTS.retryAfterSeconds);
    this.total++;
    this.byClient.set(clientIp, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.byClient.get(clientIp) ?? 1) - 1;
      if (left > 0) this.byClient.set(clientIp, left);
      else this.byClient.delete(clientIp);
    };
  }
}
