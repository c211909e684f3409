// The per-page live event stream behind SSE.
import { builder } from "../../graphql/builder.ts";
import { Message } from "../comments/graphql.ts";
import type { PageEvents } from "../../sse/page-stream.ts";
import type { LiveEvent } from "../../db/client.ts";
import type { GraphQLContext } from "../../graphql/context.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    pageEvents: PageEvents;
  }
}

/** A live event's comment as it is now, for message_created and message_updated (page and site streams alike). */
export const liveEventMessage = (event: LiveEvent, _args: unknown, ctx: GraphQLContext) =>
  event.eventId && (event.type === "message_created" || event.type === "message_updated")
    ? ctx.services.comments.find(event.eventId)
    : null;

/** A live event's stored JSON payload, parsed. */
export const liveEventPayload = (event: LiveEvent): unknown =>
  event.payload === null ? null : JSON.parse(event.payload);

const PageEvent = builder.prismaObject("LiveEvent", {
  name: "PageEvent",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "Monotonic per service; SSE id for Last-Event-ID." }),
    type: t.exposeString("type", {
      description:
        "message_created, message_updated, message_deleted, message_annotations_changed, pins_changed or ephemeral.",
    }),
    message: t.field({
      type: Message,
      nullable: true,
      description: "The comment, for message_created and message_updated.",
      resolve: liveEventMessage,
    }),
    payload: t.field({
      type: "JSON",
      nullable: true,
      description:
        "The payload of events that are not a full message: message_deleted {event_id, submission_id?}, message_annotations_changed {event_id, reactions, poll_responses?}, pins_changed {pinned}, ephemeral {kind, ...}.",
      resolve: liveEventPayload,
    }),
  }),
});

builder.subscriptionField("pageEvents", (t) =>
  t.field({
    type: PageEvent,
    args: {
      siteId: t.arg.string({ required: true }),
      pageSlug: t.arg.string({ required: true }),
      after: t.arg.int({ description: "Resume after this event id (SSE Last-Event-ID); default: only new events." }),
      until: t.arg.int({
        description:
          "End once the events up to this id are delivered (a client's resume gap, read before it joins a shared feed); default: never.",
      }),
    },
    subscribe: async (_root, args, ctx) => {
      await ctx.services.sites.requireReadable(args.siteId, args.pageSlug);
      return ctx.services.pageEvents.open(args.siteId, args.pageSlug, args.after ?? null, args.until ?? null);
    },
    resolve: (event) => event,
  }),
);
