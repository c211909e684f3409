// What several route modules share: path parameter sets, the Message selection, GraphQL
// variables of a page.
import type { RouteInput } from "../route.ts";
import { pathParams } from "../schemas.ts";

export const sitePath = { site_id: pathParams.site_id };
export const pagePath = { site_id: pathParams.site_id, page_slug: pathParams.page_slug };
export const pageVariables = (input: RouteInput) => ({ siteId: input.params.site_id, pageSlug: input.params.page_slug });

export const MESSAGE_FIELDS = `
fragment MessageFields on Message {
  event_id: eventId submission_id: submissionId room_id: roomId status
  created_at: createdAt origin_server_ts: originServerTs edited_at: editedAt
  reply_to: replyTo thread_root: threadRoot content
  author { type public_key: publicKey mxid display_name: displayName avatar_url: avatarUrl }
  reactions { key count mine }
}`;

