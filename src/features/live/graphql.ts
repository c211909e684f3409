// The per-page live event stream behind SSE.
import { builder } from "../../graphql/builder.ts";
import { Message } from "../comments/graphql.ts";
import type { PageEvents } from "../../sse/page-stream.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    pageEvents: PageEvents;
  }
}

const PageEvent = builder.prismaObject("LiveEvent", {
  name: "PageEvent",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "Monotonic per service; SSE id for Last-Event-ID." }),
    type: t.exposeString("type", { description: "message_created, message_updated, message_deleted, message_annotations_changed or ephemeral." }),
    message: t.field({
      type: Message,
      nullable: true,
      description: "The comment, for message_created and message_updated.",
      resolve: (event, _args, ctx) =>
        event.eventId && (event.type === "message_created" || event.type === "message_updated")
          ? ctx.services.comments.find(event.eventId)
          : null,
    }),
    payload: t.field({
      type: "JSON",
      nullable: true,
      description:
        "The payload of events that are not a full message: message_deleted {event_id, submission_id?}, message_annotations_changed {event_id, reactions, poll_responses?}, ephemeral {kind, ...}.",
      resolve: (event) => (event.payload === null ? null : JSON.parse(event.payload)),
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
      until: t.arg.int({ description: "End once the events up to this id are delivered (a client's resume gap, read before it joins a shared feed); default: never." }),
    },
    subscribe: async (_root, args, ctx) => {
      await ctx.services.sites.requireReadable(args.siteId, args.pageSlug);
      return ctx.services.pageEvents.open(args.siteId, args.pageSlug, args.after ?? null, args.until ?? null);
    },
    resolve: (event) => event,
  }),
);
