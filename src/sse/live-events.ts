// In-process fan-out of per-page live events. The events themselves are rows (LiveEvent), so a
// reconnecting client resumes from Last-Event-ID; this only says "there is something new".
import { EventEmitter } from "node:events";

export const pageChannel = (siteId: string, pageSlug: string): string => `${siteId}\u0000${pageSlug}`;
/** Every page of a site (a dashboard's site activity); no page channel looks like it (slugs have no NUL). */
const siteChannel = (siteId: string): string => `${siteId}\u0000\u0000site`;

export class LiveEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(siteId: string, pageSlug: string): void {
    this.emitter.emit(pageChannel(siteId, pageSlug));
    this.emitter.emit(siteChannel(siteId));
  }

  /** Listeners subscribed over all pages (each open stream holds one). */
  get listenerCount(): number {
    return this.emitter.eventNames().reduce((sum, channel) => sum + this.emitter.listenerCount(channel), 0);
  }

  /** Calls `listener` on every publish for the page; returns the unsubscribe function. */
  subscribe(siteId: string, pageSlug: string, listener: () => void): () => void {
    const channel = pageChannel(siteId, pageSlug);
    this.emitter.on(channel, listener);
    return () => this.emitter.off(channel, listener);
  }

  /** Calls `listener` on every publish for any page of the site; returns the unsubscribe function. */
  subscribeSite(siteId: string, listener: () => void): () => void {
    const channel = siteChannel(siteId);
    this.emitter.on(channel, listener);
    return () => this.emitter.off(channel, listener);
  }
}
