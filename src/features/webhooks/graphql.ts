// Webhook endpoints and their delivery log in GraphQL (the REST routes run these).
import { builder } from "../../graphql/builder.ts";
import type { WebhookDelivery as DeliveryRow } from "../../db/client.ts";
import type { EndpointView, Webhooks } from "./webhooks.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    webhooks: Webhooks;
  }
}

const WebhookEndpoint = builder.objectRef<EndpointView>("WebhookEndpoint").implement({
  description: "A site's webhook endpoint (its secret is shown only when made or rotated).",
  fields: (t) => ({
    id: t.exposeString("id"),
    siteId: t.exposeString("siteId"),
    url: t.exposeString("url"),
    events: t.exposeStringList("events", { description: "Event types sent; empty: every type." }),
    source: t.exposeString("source", { description: '"api" or "config".' }),
    status: t.exposeString("status", { description: '"active" or "disabled".' }),
    skippedCount: t.exposeInt("skippedCount", {
      description:
        "Events that happened while it was disabled, recorded as skipped and not sent; enabling it sends them.",
    }),
    disabledReason: t.exposeString("disabledReason", { nullable: true }),
    disabledAt: t.expose("disabledAt", { type: "DateTime", nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

/** An endpoint with its signing secret: when it is made, and when the secret is rotated. */
const WebhookEndpointSecret = builder
  .objectRef<{ endpoint: EndpointView; secret: string }>("WebhookEndpointSecret")
  .implement({
    fields: (t) => ({
      endpoint: t.field({ type: WebhookEndpoint, resolve: (r) => r.endpoint }),
      secret: t.exposeString("secret", { description: "whsec_ + base64 of the key; shown once." }),
    }),
  });

const WebhookDelivery = builder.objectRef<DeliveryRow>("WebhookDelivery").implement({
  description: "One event for one endpoint: its delivery state and last attempt.",
  fields: (t) => ({
    id: t.exposeInt("id"),
    messageId: t.exposeString("messageId"),
    eventType: t.exposeString("eventType"),
    commentId: t.exposeString("commentEventId"),
    pageSlug: t.exposeString("pageSlug"),
    status: t.exposeString("status", {
      description:
        '"pending", "delivered", "failed" (given up) or "skipped" (happened while the endpoint was disabled).',
    }),
    attempts: t.exposeInt("attempts"),
    lastStatus: t.exposeInt("lastStatus", { nullable: true }),
    lastError: t.exposeString("lastError", { nullable: true }),
    lastLatencyMs: t.exposeInt("lastLatencyMs", { nullable: true }),
    nextAttemptAt: t.expose("nextAttemptAt", { type: "DateTime" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    completedAt: t.expose("completedAt", { type: "DateTime", nullable: true }),
  }),
});

const ownerNote = "Callers acting for the owner check the claim token first (Sites.requireClaim); REST does.";

builder.queryField("webhooks", (t) =>
  t.field({
    type: [WebhookEndpoint],
    args: { siteId: t.arg.string({ required: true }) },
    description: `A site's webhook endpoints. ${ownerNote}`,
    resolve: (_root, args, ctx) => ctx.services.webhooks.list(args.siteId),
  }),
);

builder.queryField("webhook", (t) =>
  t.field({
    type: WebhookEndpoint,
    args: { siteId: t.arg.string({ required: true }), id: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.webhooks.get(args.siteId, args.id),
  }),
);

builder.queryField("webhookDeliveries", (t) =>
  t.field({
    type: [WebhookDelivery],
    description: "An endpoint's delivery log, newest first.",
    args: {
      siteId: t.arg.string({ required: true }),
      id: t.arg.string({ required: true }),
      before: t.arg.int(),
      limit: t.arg.int({ defaultValue: 50 }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.webhooks.deliveries(args.siteId, args.id, args.before ?? null, args.limit ?? 50),
  }),
);

builder.mutationField("createWebhook", (t) =>
  t.field({
    type: WebhookEndpointSecret,
    args: {
      siteId: t.arg.string({ required: true }),
      url: t.arg.string({ required: true }),
      events: t.arg.stringList({
        description: "comment.created, comment.edited, comment.deleted, comment.held; empty: all.",
      }),
    },
    description: `Registers an endpoint; its signing secret is returned once. ${ownerNote}`,
    resolve: (_root, args, ctx) =>
      ctx.services.webhooks.create(args.siteId, { url: args.url, events: args.events ?? null }),
  }),
);

builder.mutationField("updateWebhook", (t) =>
  t.field({
    type: WebhookEndpoint,
    args: {
      siteId: t.arg.string({ required: true }),
      id: t.arg.string({ required: true }),
      url: t.arg.string(),
      events: t.arg.stringList({
        description: "comment.created, comment.edited, comment.deleted, comment.held; empty: all.",
      }),
      enabled: t.arg.boolean(),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.webhooks.update(args.siteId, args.id, { url: args.url, events: args.events, enabled: args.enabled }),
  }),
);

builder.mutationField("rotateWebhookSecret", (t) =>
  t.field({
    type: WebhookEndpointSecret,
    args: { siteId: t.arg.string({ required: true }), id: t.arg.string({ required: true }) },
    description: "A new signing secret, returned once; the old one stops at once.",
    resolve: (_root, args, ctx) => ctx.services.webhooks.rotateSecret(args.siteId, args.id),
  }),
);

builder.mutationField("deleteWebhook", (t) =>
  t.field({
    type: "Boolean",
    args: { siteId: t.arg.string({ required: true }), id: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await ctx.services.webhooks.remove(args.siteId, args.id);
      return true;
    },
  }),
);
