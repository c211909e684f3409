// Message: a projected comment, in the shape the public API returns.
import { builder } from "../../graphql/builder.ts";
import { DEFAULT_PAGE, DEFAULT_PER_PAGE, MAX_PER_PAGE } from "../../core/pagination.ts";
import { shownSummaries, type ReactionSummary as Summary } from "../../projection/annotations.ts";
import { shownProfile } from "../../projection/members.ts";
import { presentContent } from "../media/present.ts";
import type { Comments } from "./comments.ts";
import type { Membership } from "../../projection/member-store.ts";
import type { ListedComment, MessageRow, PageCount as PageCountRow, PageRoomContents } from "./comment-read-store.ts";
import { MAX_COUNTED_PAGES } from "../../config/limits.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    comments: Comments;
  }
}

interface AuthorShape {
  type: string;
  publicKey: string | null;
  mxid: string | null;
  displayName: string | null;
  avatarUrl: string | null;
}

const MessageAuthor = builder.objectRef<AuthorShape>("MessageAuthor").implement({
  fields: (t) => ({
    type: t.exposeString("type", {
      description: '"visitor" (posted through the API) or "matrix" (a regular Matrix account).',
    }),
    publicKey: t.exposeString("publicKey", { nullable: true, description: "Set for visitors." }),
    mxid: t.exposeString("mxid", { nullable: true, description: "Set for Matrix authors." }),
    displayName: t.exposeString("displayName", { nullable: true }),
    avatarUrl: t.string({
      nullable: true,
      description: "A signed media proxy URL (96x96 crop); the mxc:// URL when the proxy is disabled.",
      resolve: (author, _args, ctx) => ctx.services.mediaUrls.present(author.avatarUrl, "avatar", ctx.mediaBase),
    }),
  }),
});

/** A comment's author as shown: its current room profile (`member`, null: never a member), else the one captured with the comment. */
function authorOf(c: MessageRow, member: Membership | null): AuthorShape {
  return {
    type: c.authorType,
    publicKey: c.authorType === "visitor" ? c.authorPublicKey : null,
    mxid: c.authorType === "matrix" ? c.sender : null,
    ...shownProfile(member, c),
  };
}

const ReactionSummary = builder.objectRef<Summary>("ReactionSummary").implement({
  fields: (t) => ({ key: t.exposeString("key"), count: t.exposeInt("count"), mine: t.exposeBoolean("mine") }),
});

// Fields read the parent row's scalars directly: a list page's rows (ListedComment) leave out the
// columns no field reads, so the parent is any row with the columns they do (and a list page's,
// its author's profile).
export const Message = builder.objectRef<MessageRow | ListedComment>("Message").implement({
  description: "A comment on a page.",
  fields: (t) => ({
    eventId: t.exposeString("eventId"),
    submissionId: t.exposeString("submissionId", {
      nullable: true,
      description: "The API submission that produced it; absent for Matrix-native comments.",
    }),
    roomId: t.exposeString("roomId"),
    status: t.exposeString("status", { description: '"published", "edited" or "redacted".' }),
    createdAt: t.field({ type: "DateTime", resolve: (c) => new Date(Number(c.originServerTs)) }),
    originServerTs: t.float({ resolve: (c) => Number(c.originServerTs) }),
    editedAt: t.expose("editedAt", { type: "DateTime", nullable: true }),
    replyTo: t.exposeString("replyTo", { nullable: true }),
    threadRoot: t.exposeString("threadRoot", { nullable: true }),
    content: t.field({
      type: "JSON",
      resolve: (c, _args, ctx) => presentContent(JSON.parse(c.content), ctx.services.mediaUrls, ctx.mediaBase),
    }),
    author: t.field({
      type: MessageAuthor,
      // A list page's rows carry their authors' profiles (its statement joins them); others load them, batched.
      resolve: (c, _args, ctx) =>
        "member" in c
          ? authorOf(c, c.member)
          : ctx.profiles.load(`${c.roomId}\u0000${c.sender}`).then((member) => authorOf(c, member)),
    }),
    reactions: t.field({
      type: [ReactionSummary],
      description:
        "Per key, the number of distinct reacting users, in the order of each key's first reaction. `mine` is set only on personalized reads.",
      // The summaries the projection stored with the comment; on a viewer's page, the keys the
      // viewer reacted with (read with the page) decide `mine`.
      resolve: (c) => shownSummaries(c.reactionSummary, "viewerKeys" in c ? c.viewerKeys : null),
    }),
  }),
});

export const PaginationMeta = builder
  .objectRef<{ total: number; page: number; perPage: number }>("PaginationMeta")
  .implement({
    fields: (t) => ({
      total: t.exposeInt("total"),
      page: t.exposeInt("page"),
      perPage: t.exposeInt("perPage"),
      totalPages: t.int({ resolve: (m) => Math.ceil(m.total / m.perPage) }),
    }),
  });

const CommentOrder = builder.enumType("CommentOrder", {
  description:
    "asc and desc are the specification's chronological orders; top (an extension) lists the most reactions first.",
  values: {
    asc: { description: "Oldest first." },
    desc: { description: "Newest first." },
    top: { description: "Most reactions (all keys, distinct users per key) first; ties oldest first." },
  } as const,
});

/** A page of a page's comments; the moderation feature adds the page's pinned comments, closed and the viewer's pending ones. */
export const CommentPage = builder
  .objectRef<{
    data: Array<MessageRow | ListedComment>;
    meta: { total: number; page: number; perPage: number };
    siteId: string;
    pageSlug: string;
    /** The verified viewer's key on a personalized read; null: anonymous. */
    viewerKey: string | null;
    /** The page room's projected power levels and pinned events, read with the page. */
    roomState: PageRoomContents;
  }>("CommentPage")
  .implement({
    fields: (t) => ({
      data: t.field({ type: [Message], resolve: (p) => p.data }),
      meta: t.field({ type: PaginationMeta, resolve: (p) => p.meta }),
    }),
  });

builder.queryField("comments", (t) =>
  t.field({
    type: CommentPage,
    description: "A page's comments, oldest first unless order is desc (newest first) or top (most reactions first).",
    args: {
      siteId: t.arg.string({ required: true }),
      pageSlug: t.arg.string({ required: true }),
      page: t.arg.int({ defaultValue: DEFAULT_PAGE }),
      perPage: t.arg.int({ defaultValue: DEFAULT_PER_PAGE, description: `1-${MAX_PER_PAGE}` }),
      order: t.arg({ type: CommentOrder, defaultValue: "asc" }),
      authorPublicKey: t.arg.string({
        description: "Personalization (with authorSignature): sets `mine` on reactions.",
      }),
      authorSignature: t.arg.string({ description: 'Signature over ["QUERY_COMMENTS", site_id, page_slug].' }),
    },
    resolve: async (_root, args, ctx) => {
      const result = await ctx.services.comments.list({
        siteId: args.siteId,
        pageSlug: args.pageSlug,
        page: args.page ?? DEFAULT_PAGE,
        perPage: args.perPage ?? DEFAULT_PER_PAGE,
        order: args.order ?? "asc",
        authorPublicKey: args.authorPublicKey ?? null,
        authorSignature: args.authorSignature ?? null,
      });
      return {
        data: result.rows,
        meta: { total: result.total, page: result.page, perPage: result.perPage },
        siteId: args.siteId,
        pageSlug: args.pageSlug,
        viewerKey: result.viewerKey,
        roomState: result.roomState,
      };
    },
  }),
);

builder.queryField("viewerReactions", (t) =>
  t.field({
    type: [builder.simpleObject("ViewerReaction", { fields: (f) => ({ eventId: f.string(), key: f.string() }) })],
    description:
      "The personal part of a personalized comment read: the reactions the verified viewer has in force on the given comments (a page already read). The proof is the one of comments().",
    args: {
      siteId: t.arg.string({ required: true }),
      pageSlug: t.arg.string({ required: true }),
      eventIds: t.arg.stringList({ required: true, description: `At most ${MAX_PER_PAGE}.` }),
      authorPublicKey: t.arg.string(),
      authorSignature: t.arg.string({ description: 'Signature over ["QUERY_COMMENTS", site_id, page_slug].' }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.comments.viewerReactions({
        siteId: args.siteId,
        pageSlug: args.pageSlug,
        eventIds: args.eventIds,
        authorPublicKey: args.authorPublicKey ?? null,
        authorSignature: args.authorSignature ?? null,
      }),
  }),
);

const PageCount = builder.objectRef<PageCountRow>("PageCount").implement({
  description: "A page's standing comments (deleted ones leave the count) and when the newest was written.",
  fields: (t) => ({
    pageSlug: t.exposeString("pageSlug"),
    commentCount: t.exposeInt("commentCount"),
    lastCommentAt: t.expose("lastCommentAt", { type: "DateTime", nullable: true }),
  }),
});

builder.queryField("pageCounts", (t) =>
  t.field({
    type: [PageCount],
    description: `Comment counts of many pages of a site (at most ${MAX_COUNTED_PAGES}), in the order asked; a page without comments counts 0.`,
    args: {
      siteId: t.arg.string({ required: true }),
      pages: t.arg.stringList({ required: true }),
    },
    resolve: (_root, args, ctx) => ctx.services.comments.pageCounts(args.siteId, args.pages),
  }),
);

builder.queryField("comment", (t) =>
  t.field({
    type: Message,
    nullable: true,
    description: "One comment of a page as the list shows it (null: not projected, or of another page).",
    args: {
      siteId: t.arg.string({ required: true }),
      pageSlug: t.arg.string({ required: true }),
      eventId: t.arg.string({ required: true }),
    },
    resolve: async (_root, args, ctx) => {
      const found = await ctx.services.comments.find(args.eventId);
      return found && found.siteId === args.siteId && found.pageSlug === args.pageSlug ? found : null;
    },
  }),
);
