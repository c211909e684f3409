// A Message's typed `content`, by `type` (the specification's "Content variants"): the one
// declaration. The OpenAPI document shows it as a `oneOf` (and the contract tests check every
// response against it), the projection's builders return its type, and the SDK's types are
// generated from the document.
import type { FromSchema } from "json-schema-to-ts";

const string = { type: "string" } as const;
const nullableString = { type: ["string", "null"] } as const;
const nullableInteger = { type: ["integer", "null"] } as const;

/** A variant: `type` fixed to its name, every listed member required, no other member. */
const variant = <const T extends string, const P extends Record<string, object>>(type: T, properties: P) =>
  ({
    type: "object",
    title: type,
    required: ["type", ...(Object.keys(properties) as Extract<keyof P, string>[])],
    properties: { type: { const: type }, ...properties },
    additionalProperties: false,
  }) as const;

export const textContent = variant("text", {
  body: string,
  format: { ...nullableString, description: 'The format of `formatted_body` ("org.matrix.custom.html"), or null.' },
  formatted_body: nullableString,
});

export const mediaContent = variant("media", {
  kind: { enum: ["image", "video", "audio", "file", "sticker"] },
  url: { ...nullableString, description: "A signed proxy URL of the original, or the mxc:// URL (see content)." },
  filename: nullableString,
  mimetype: nullableString,
  size: nullableInteger,
  width: nullableInteger,
  height: nullableInteger,
  thumbnail_url: nullableString,
  alt_text: nullableString,
  voice: { type: "boolean" },
});

export const locationContent = variant("location", {
  geo_uri: nullableString,
  description: nullableString,
  thumbnail_url: nullableString,
});

export const pollContent = variant("poll", {
  question: string,
  options: {
    type: "array",
    items: {
      type: "object",
      required: ["id", "text"],
      properties: { id: string, text: string },
      additionalProperties: false,
    },
  },
  responses: {
    type: "array",
    description: "Per option, in the options' order: how many voters chose it (each voter's latest response).",
    items: {
      type: "object",
      required: ["option_index", "count"],
      properties: { option_index: { type: "integer" }, count: { type: "integer" } },
      additionalProperties: false,
    },
  },
});

export const redactedContent = variant("redacted", {});

export const encryptedContent = variant("encrypted", { algorithm: nullableString, sender_key: nullableString });

export const unknownContent = variant("unknown", {
  fallback: { ...nullableString, description: "The event's `body`, if it has one." },
  raw: { type: "object", description: "The event's content as sent (the service's proof block left out)." },
});

export const messageContent = {
  description:
    "Typed content, one variant by `type`. With the media proxy enabled (media.proxy_enabled), a media variant's `url` is a signed proxy URL of the original and its `thumbnail_url` one of a 320x240 scale thumbnail (for a png, jpeg, gif or webp image without its own thumbnail, a thumbnail of the image itself), as is a location's `thumbnail_url`; references to another server's media stay mxc://, and a reference that is not an mxc:// URL is null. With the proxy disabled they are the raw mxc:// URLs.",
  oneOf: [textContent, mediaContent, locationContent, pollContent, redactedContent, encryptedContent, unknownContent],
} as const;

export type MessageContent = FromSchema<typeof messageContent>;
export type TextContent = FromSchema<typeof textContent>;
export type MediaContent = FromSchema<typeof mediaContent>;
export type LocationContent = FromSchema<typeof locationContent>;
export type PollContent = FromSchema<typeof pollContent>;
export type ContentType = MessageContent["type"];
