// Room info of a page: name, topic, avatar, members and system messages.
import { builder } from "../../graphql/builder.ts";
import { roomInfo, SYSTEM_MESSAGE_LIMIT, type RoomInfo, type SystemMessage } from "./rooms.ts";
import type { MatrixNames } from "../../matrix/names.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    /** Room reads tell the service's own users (the bot, visitors' virtual users) from others. */
    names: MatrixNames;
  }
}

const SystemMessageType = builder.objectRef<SystemMessage>("SystemMessage").implement({
  description: "A membership change or a name, topic or avatar change of the room.",
  fields: (t) => ({
    eventId: t.exposeString("eventId"),
    eventType: t.exposeString("eventType", {
      description: "m.room.member, m.room.name, m.room.topic or m.room.avatar.",
    }),
    stateKey: t.exposeString("stateKey", { nullable: true }),
    sender: t.exposeString("sender"),
    originServerTs: t.exposeFloat("originServerTs"),
    content: t.expose("content", { type: "JSON", description: "The event's content as sent." }),
  }),
});

const RoomInfoType = builder.objectRef<RoomInfo>("RoomInfo").implement({
  fields: (t) => ({
    roomId: t.exposeString("roomId"),
    name: t.exposeString("name", { nullable: true }),
    topic: t.exposeString("topic", { nullable: true }),
    avatarUrl: t.string({
      nullable: true,
      description: "A signed media proxy URL of the room avatar; the mxc:// URL when the proxy is disabled.",
      resolve: (room, _args, ctx) => ctx.services.mediaUrls.present(room.avatarUrl, "original", ctx.mediaBase),
    }),
    avatarThumbnailUrl: t.string({
      nullable: true,
      description:
        "A signed media proxy URL of the room avatar as a 96x96 crop thumbnail; the mxc:// URL when the proxy is disabled.",
      resolve: (room, _args, ctx) => ctx.services.mediaUrls.present(room.avatarUrl, "avatar", ctx.mediaBase),
    }),
    memberCount: t.exposeInt("memberCount", { description: "Joined members, not counting the service's bot." }),
    systemMessages: t.expose("systemMessages", {
      type: [SystemMessageType],
      description: `The most recent ${SYSTEM_MESSAGE_LIMIT}, oldest first.`,
    }),
  }),
});

builder.queryField("pageRoom", (t) =>
  t.field({
    type: RoomInfoType,
    description: "The page's active room.",
    args: { siteId: t.arg.string({ required: true }), pageSlug: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => roomInfo(ctx.services, args.siteId, args.pageSlug),
  }),
);
