// The shape of a visitor media upload's answer.
import { nullableString, type JSONSchema, type WireOf } from "../../rest/schemas.ts";

export const components = {
  MediaUpload: {
    type: "object",
    description:
      "A visitor media upload result: post it as a comment's `media` (its url must be this visitor's upload for this site).",
    required: ["url", "filename", "mimetype", "size", "voice"],
    properties: {
      url: {
        type: "string",
        pattern: "^mxc://",
        description: "The mxc:// URL of the upload in the homeserver's media repository.",
      },
      filename: nullableString,
      mimetype: {
        type: "string",
        description: "The canonical MIME type (the declared one, checked against the bytes).",
      },
      size: { type: "integer", description: "Bytes." },
      voice: { type: "boolean", description: "Declared a voice message (voice=true)." },
    },
  },
} as const satisfies Record<string, JSONSchema>;

/** An upload's result, as the upload operation returns it and the API answers it. */
export type UploadedMedia = WireOf<typeof components.MediaUpload>;
