// The SDK's wire types: taken from the generated OpenAPI types (api-types.ts), narrowed where
// the document leaves a field open (live payloads) as the contract fixes it.
import type { components, operations } from "./api-types.ts";

type Schemas = components["schemas"];
type JsonBody<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;

export type Message = Schemas["Message"];
export type MessagePage = Schemas["MessagePage"];
export type PendingComment = Schemas["PendingComment"];
export type Author = Schemas["Author"];
export type ReactionSummary = Schemas["ReactionSummary"];
export type RoomInfo = Schemas["RoomInfo"];
export type PageRoles = Schemas["PageRoles"];
export type PageCount = Schemas["PageCount"];
export type SiteRoles = Schemas["SiteRoles"];
export type PageModerators = Schemas["PageModerators"];
export type StickerPack = Schemas["StickerPack"];
export type VisitorProfile = Schemas["VisitorProfile"];
export type MediaUpload = Schemas["MediaUpload"];
export type Challenge = Schemas["Challenge"];
export type SubmissionAccepted = Schemas["SubmissionAccepted"];
export type Problem = Schemas["Problem"];
export type PaginationMeta = Schemas["PaginationMeta"];

export type ListQuery = Omit<JsonBody<"listComments">, "author_public_key" | "author_signature">;
export type PostCommentBody = JsonBody<"postComment">;
export type CreatePollBody = JsonBody<"createPoll">;
export type PostLocationBody = JsonBody<"postLocation">;
export type EditCommentBody = JsonBody<"editComment">;

/** A Message's content, one variant by `type` (src/contract/message-content.ts, through the document). */
export type Content = Schemas["MessageContent"];
export type TextContent = Extract<Content, { type: "text" }>;
export type MediaContent = Extract<Content, { type: "media" }>;
export type LocationContent = Extract<Content, { type: "location" }>;
export type PollContent = Extract<Content, { type: "poll" }>;

/** How a user appears in ephemeral payloads (like a Message author). */
export type UserRef =
  | { type: "visitor"; public_key: string | null; display_name: string | null }
  | { type: "matrix"; mxid: string; display_name: string | null };

/** A live event (contract: "SSE"), by type. */
export type LiveEvent =
  | { type: "message_created" | "message_updated"; payload: Message }
  | { type: "message_deleted"; payload: { event_id: string; submission_id?: string } }
  | {
      type: "message_annotations_changed";
      payload: { event_id: string; reactions: ReactionSummary[]; poll_responses?: PollContent["responses"] };
    }
  | {
      /** An extension: the page's pinned comments after a change (docs/dashboard.md). */
      type: "pins_changed";
      payload: { pinned: string[] };
    }
  | {
      type: "ephemeral";
      payload: { kind: "typing"; users: UserRef[] } | { kind: "receipt" | "presence"; [field: string]: unknown };
    };

// The live event types are the document's: one added or renamed there fails the type check here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
export type LiveEventTypesMatch = Assert<Same<LiveEvent["type"], Schemas["LiveEvent"]["type"]>>;
