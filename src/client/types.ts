// The SDK's wire types: taken from the generated OpenAPI types (api-types.ts), narrowed where
// the document leaves a field open (content variants, live payloads) as the contract fixes it.
import type { components, operations } from "./api-types.ts";

type Schemas = components["schemas"];
type JsonBody<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;

export type Message = Omit<Schemas["Message"], "content"> & { content: Content };
export type MessagePage = Omit<Schemas["MessagePage"], "data"> & { data: Message[] };
export type Author = Schemas["Author"];
export type ReactionSummary = Schemas["ReactionSummary"];
export type RoomInfo = Schemas["RoomInfo"];
export type PageRoles = Schemas["PageRoles"];
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

export type TextContent = { type: "text"; body: string; format: string | null; formatted_body: string | null };
export type MediaContent = {
  type: "media";
  kind: "image" | "video" | "audio" | "file" | "sticker";
  url: string | null;
  filename: string | null;
  mimetype: string | null;
  size: number | null;
  width: number | null;
  height: number | null;
  thumbnail_url: string | null;
  alt_text: string | null;
  voice: boolean;
  body?: string;
};
export type LocationContent = { type: "location"; geo_uri: string; description: string | null; thumbnail_url: string | null };
export type PollContent = { type: "poll"; question: string; options: { id: string; text: string }[]; responses: { option_index: number; count: number }[] };
export type Content =
  | TextContent
  | MediaContent
  | LocationContent
  | PollContent
  | { type: "redacted" }
  | { type: "encrypted"; algorithm: string; sender_key: string }
  | { type: "unknown"; fallback: string | null; raw: Record<string, unknown> };

/** How a user appears in ephemeral payloads (like a Message author). */
export type UserRef = { type: "visitor"; public_key: string | null; display_name: string | null } | { type: "matrix"; mxid: string; display_name: string | null };

/** A live event (contract: "SSE"), by type. */
export type LiveEvent =
  | { type: "message_created" | "message_updated"; payload: Message }
  | { type: "message_deleted"; payload: { event_id: string; submission_id?: string } }
  | { type: "message_annotations_changed"; payload: { event_id: string; reactions: ReactionSummary[]; poll_responses?: PollContent["responses"] } }
  | { type: "ephemeral"; payload: { kind: "typing"; users: UserRef[] } | { kind: "receipt" | "presence"; [field: string]: unknown } };

// The live event types are the document's: one added or renamed there fails the type check here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
export type LiveEventTypesMatch = Assert<Same<LiveEvent["type"], Schemas["LiveEvent"]["type"]>>;
