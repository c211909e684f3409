// The shapes of webhook endpoints, their delivery log, and the requests that manage them.
import { ref, slug, type JSONSchema } from "../../rest/schemas.ts";
import { WEBHOOK_EVENT_TYPES } from "../../config/config.ts";
import { MAX_LOG_ROWS } from "./webhooks.ts";

const eventTypes = {
  type: "array",
  items: { enum: [...WEBHOOK_EVENT_TYPES] },
  maxItems: WEBHOOK_EVENT_TYPES.length,
  description: "The event types sent; empty or absent: every type.",
} as const;

const endpointProperties = {
  id: { type: "string" },
  site_id: slug,
  url: { type: "string" },
  events: eventTypes,
  source: {
    enum: ["api", "config"],
    description: "config: declared in [sites.<id>.webhooks.<name>] (read-only here).",
  },
  status: { enum: ["active", "disabled"] },
  skipped_count: {
    type: "integer",
    description:
      "Events that happened while it was disabled: recorded as skipped in its delivery log, not sent; enabling it sends them.",
  },
  disabled_reason: {
    type: ["string", "null"],
    description: "Why it is disabled: its owner's choice, or the delivery that failed for 24 hours and its last error.",
  },
  disabled_at: { type: ["string", "null"], format: "date-time" },
  created_at: { type: "string", format: "date-time" },
} as const;
const endpointRequired = [
  "id",
  "site_id",
  "url",
  "events",
  "source",
  "status",
  "skipped_count",
  "disabled_reason",
  "disabled_at",
  "created_at",
] as const;

export const components = {
  WebhookEndpoint: { type: "object", required: [...endpointRequired], properties: endpointProperties },
  WebhookEndpointWithSecret: {
    type: "object",
    required: [...endpointRequired, "secret"],
    properties: {
      ...endpointProperties,
      secret: {
        type: "string",
        description:
          "The signing secret (Standard Webhooks: whsec_ + base64 of the key); shown once, at creation and at rotation.",
      },
    },
  },
  WebhookEndpointList: {
    type: "object",
    required: ["data"],
    properties: { data: { type: "array", items: ref("WebhookEndpoint") } },
  },
  WebhookDelivery: {
    type: "object",
    required: [
      "id",
      "message_id",
      "event_type",
      "comment_id",
      "page_slug",
      "status",
      "attempts",
      "last_status",
      "last_error",
      "last_latency_ms",
      "next_attempt_at",
      "created_at",
      "completed_at",
    ],
    properties: {
      id: { type: "integer" },
      message_id: { type: "string", description: "The webhook-id header, the same on every attempt." },
      event_type: { enum: [...WEBHOOK_EVENT_TYPES] },
      comment_id: { type: "string" },
      page_slug: slug,
      status: {
        enum: ["pending", "delivered", "failed", "skipped"],
        description:
          "failed: given up (the endpoint was disabled); skipped: the event happened while the endpoint was disabled, not sent.",
      },
      attempts: { type: "integer" },
      last_status: {
        type: ["integer", "null"],
        description: "The receiver's HTTP status at the last attempt; null: no answer.",
      },
      last_error: {
        type: ["string", "null"],
        description: "Why the last attempt failed (the start of the receiver's answer, a timeout, a refused address).",
      },
      last_latency_ms: { type: ["integer", "null"] },
      next_attempt_at: { type: "string", format: "date-time", description: "When a pending delivery is tried next." },
      created_at: { type: "string", format: "date-time" },
      completed_at: { type: ["string", "null"], format: "date-time" },
    },
  },
  WebhookDeliveryList: {
    type: "object",
    required: ["data"],
    properties: { data: { type: "array", items: ref("WebhookDelivery") } },
  },
} as const satisfies Record<string, JSONSchema>;

export const requestBodies = {
  createWebhook: {
    type: "object",
    additionalProperties: false,
    required: ["url"],
    properties: {
      url: { type: "string", maxLength: 2048, description: "Where events are POSTed: http(s), no credentials." },
      events: eventTypes,
    },
  },
  updateWebhook: {
    type: "object",
    additionalProperties: false,
    properties: {
      url: { type: "string", maxLength: 2048 },
      events: eventTypes,
      enabled: {
        type: "boolean",
        description:
          "true enables a disabled endpoint (its failed deliveries are tried again, its skipped events sent); false disables it.",
      },
    },
  },
} as const satisfies Record<string, JSONSchema>;

export const deliveryQuery = {
  properties: {
    before: { type: "string", pattern: "^[0-9]{1,10}$", description: "Integer: list deliveries older than this id." },
    limit: { type: "string", pattern: "^[0-9]{1,3}$", description: `Integer 1-${MAX_LOG_ROWS} (default 50).` },
  },
  required: [] as string[],
};
