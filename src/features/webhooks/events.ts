// Webhook events: what happened to a comment, its type name, and its message id (the
// webhook-id), derived from what happened so that recording it twice (a repeated or replayed
// projection) is one message, delivered once per endpoint.
import { createHash } from "node:crypto";
import type { CommentChangeKind } from "../../projection/page-context.ts";

/**
 * - comment.created: a comment became visible (projected from Matrix);
 * - comment.edited: its author edited it (each edit, by its time);
 * - comment.deleted: it was redacted (by its author, a moderator or the service);
 * - comment.held: it is held for review (emitted by moderation: Webhooks.commentHeld).
 */
export type WebhookEventType = `comment.${CommentChangeKind | "held"}`;

/** A comment event for a site's endpoints. */
export interface WebhookEvent {
  type: WebhookEventType;
  siteId: string;
  pageSlug: string;
  /** The comment's Matrix event id. */
  eventId: string;
  /** Tells one edit (or hold) of a comment from another; "" when there is only one. */
  revision: string;
}

/** The webhook-id of an event: the same for the same happening, whoever records it. */
export function messageIdOf(event: WebhookEvent): string {
  const digest = createHash("sha256")
    .update([event.type, event.siteId, event.pageSlug, event.eventId, event.revision].join("\u0000"))
    .digest("base64url");
  return `msg_${digest.slice(0, 32)}`;
}

/** Whether an endpoint subscribed to `events` (empty: every type) is sent `type`. */
export const subscribes = (events: readonly string[], type: WebhookEventType): boolean =>
  events.length === 0 || events.includes(type);

/** The body of a message (Standard Webhooks' {type, timestamp, data}). */
export function messageBody(
  event: Pick<WebhookEvent, "type" | "siteId" | "pageSlug" | "eventId">,
  happenedAt: Date,
  comment: unknown,
  link: string | null,
): string {
  return JSON.stringify({
    type: event.type,
    timestamp: happenedAt.toISOString(),
    data: {
      site_id: event.siteId,
      page_slug: event.pageSlug,
      comment_id: event.eventId,
      comment,
      link,
    },
  });
}
