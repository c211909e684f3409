// Moderation for dashboards: the acts (delete, ban, pin, close, review held comments, hold
// settings) as mutations, the held comments and banned authors of a site as keyset connections,
// and what a page's comment read adds (pinned comments, closed, the viewer's pending comments).
// Every field checks its caller's role at the time of the call (src/features/dashboard/access.ts).
import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import type { SiteBan } from "../../db/client.ts";
import { messageContent, relationsOf } from "../../projection/message-content.ts";
import type { SubmissionPayload } from "../../queue/payloads.ts";
import { presentContent } from "../media/present.ts";
import { CommentPage, Message } from "../comments/graphql.ts";
import { requireSiteReader, requireSiteRole } from "../dashboard/access.ts";
import { decodeKeysetCursor, encodeKeysetCursor } from "../dashboard/cursors.ts";
import {
  CONNECTION_LIMITS,
  checkFirst,
  type Connection,
  connection,
  type DashboardPage,
} from "../dashboard/dashboard.ts";
import { connectionType, DashboardPageType, DashboardSite } from "../dashboard/graphql.ts";
import { DASHBOARD_FIELD } from "../dashboard/root-fields.ts";
import { HOLD_MODES, type HoldSetting } from "./hold-rules.ts";
import { checkBulkSize, type Moderation } from "./moderation.ts";
import { isClosed, roomPins, roomPowerLevels } from "./page-closure.ts";
import type { HeldSubmission } from "./moderation-store.ts";
import { EventType } from "../../contract/matrix-vocabulary.ts";
import { virtualUsers } from "../../projection/virtual-user-store.ts";
import { MAX_BULK_DELETE } from "../../config/limits.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    moderation: Moderation;
  }
}

const HoldModeEnum = builder.enumType("HoldMode", {
  description:
    "Holding comments for review: off; all (every new comment); first-post (an author's first comment on the site); links (a comment with a URL or web address).",
  values: Object.fromEntries(HOLD_MODES.map((mode) => [mode.replace("-", "_"), { value: mode }])) as Record<
    "off" | "all" | "first_post" | "links",
    { value: (typeof HOLD_MODES)[number] }
  >,
});

const ModerationSettingType = builder.objectRef<HoldSetting>("ModerationSetting").implement({
  description: "The hold-for-review setting in force (the page's, else the site's, else [sites.<id>], else off).",
  fields: (t) => ({
    mode: t.field({ type: HoldModeEnum, resolve: (s) => s.mode }),
    words: t.exposeStringList("words", {
      description: "A new comment containing one of these (a whole word, any case) is held whatever the mode.",
    }),
  }),
});

/** The typed content a held comment will have, from the Matrix content it was accepted with. */
const heldContent = (held: HeldSubmission) => {
  const { matrix } = JSON.parse(held.payload) as SubmissionPayload;
  const content = matrix.action === "send" ? matrix.content : {};
  const type = matrix.action === "send" ? matrix.type : EventType.Message;
  return { content: messageContent({ type, content } as never), relations: relationsOf(content) };
};

export const HeldComment = builder.objectRef<HeldSubmission>("HeldComment").implement({
  description: "A comment held for review: in the service's queue, not in Matrix until approved.",
  fields: (t) => ({
    submissionId: t.exposeString("id"),
    pageSlug: t.exposeString("pageSlug"),
    kind: t.exposeString("kind", { description: "comment.post, poll.create or location.post." }),
    authorPublicKey: t.exposeString("authorPublicKey"),
    authorDisplayName: t.string({
      nullable: true,
      description: "The name the author gave with the comment; null: none.",
      resolve: (h) => (JSON.parse(h.payload) as SubmissionPayload).displayName,
    }),
    status: t.string({
      description:
        '"held", "approved" (queued for Matrix, or sent), "rejected", or "failed" (the homeserver refused it: error says why).',
      resolve: (h) => publicStatus(h.status),
    }),
    error: t.string({
      nullable: true,
      description: "Why it failed (status failed): the homeserver's refusal, e.g. a page closed meanwhile.",
      resolve: (h) => (h.status === "failed" ? (h.lastError ?? "refused") : null),
    }),
    reason: t.exposeString("heldReason", {
      nullable: true,
      description: 'Why it was held: "all", "first-post", "links" or "words".',
    }),
    reviewedBy: t.exposeString("reviewedBy", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    replyTo: t.string({ nullable: true, resolve: (h) => heldContent(h).relations.replyTo }),
    threadRoot: t.string({ nullable: true, resolve: (h) => heldContent(h).relations.threadRoot }),
    content: t.field({
      type: "JSON",
      description: "Typed content, as a Message's.",
      resolve: (h, _args, ctx) => presentContent(heldContent(h).content, ctx.services.mediaUrls, ctx.mediaBase),
    }),
  }),
});

const publicStatus = (status: string) =>
  status === "held" || status === "rejected" || status === "failed" ? status : "approved";

/** A ban with its visitor's name where the list read it (banAuthor's answer has none). */
type NamedBan = SiteBan & { displayName?: string | null };

const BannedAuthor = builder.objectRef<NamedBan>("BannedAuthor").implement({
  description:
    "An author banned from a site: by a dashboard (banned in the site's Space and every page room) or by a ban made in one of the site's rooms in Matrix.",
  fields: (t) => ({
    userId: t.exposeString("userId", { description: "The Matrix user: a visitor's virtual user or a Matrix account." }),
    publicKey: t.exposeString("publicKey", { nullable: true, description: "Set for visitors." }),
    displayName: t.string({
      nullable: true,
      description:
        "A visitor's display name on the site (in bannedAuthors); null for a Matrix account (its userId names it).",
      resolve: (b) => b.displayName ?? null,
    }),
    reason: t.exposeString("reason", { nullable: true }),
    bannedBy: t.exposeString("bannedBy", { description: 'A Matrix user id, or "operator".' }),
    bannedAt: t.expose("createdAt", { type: "DateTime" }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true, description: "null: until unbanned." }),
  }),
});

const HeldConnection = connectionType("HeldComment", HeldComment);
const BannedConnection = connectionType("BannedAuthor", BannedAuthor);

/** A site's held comments (of one page with pageSlug), oldest first: a moderator of that page, or a site role. */
async function heldComments(
  ctx: GraphQLContext,
  siteId: string,
  pageSlug: string | null,
  first: number | null,
  after: string | null,
): Promise<Connection<HeldSubmission>> {
  await requireSiteRole(ctx, siteId, "moderator", pageSlug ?? undefined);
  const take = checkFirst(first);
  const cursor = after === null ? null : decodeKeysetCursor(after, "held");
  const rows = await ctx.services.moderation.held(
    siteId,
    pageSlug,
    cursor && { createdAt: cursor.at, id: cursor.id },
    take + 1,
  );
  return connection(rows, take, (h) => ({
    cursor: encodeKeysetCursor("held", { at: h.createdAt, id: h.id }),
    node: h,
  }));
}

/** A site's banned authors, oldest ban first (dashboardSite checked the caller holds a role on the site). */
async function bannedAuthors(
  ctx: GraphQLContext,
  siteId: string,
  first: number | null,
  after: string | null,
): Promise<Connection<NamedBan>> {
  const take = checkFirst(first);
  const cursor = after === null ? null : decodeKeysetCursor(after, "banned");
  const rows = await ctx.services.moderation.bans(
    siteId,
    cursor && { createdAt: cursor.at, userId: cursor.id },
    take + 1,
  );
  // The visitors' names, in one read for the page of bans.
  const visitors = await virtualUsers(
    ctx.services.db,
    rows.filter((b) => b.publicKey !== null).map((b) => b.userId),
  );
  const names = new Map(visitors.map((v) => [v.userId, v.displayName]));
  return connection(rows, take, (b) => ({
    cursor: encodeKeysetCursor("banned", { at: b.createdAt, id: b.userId }),
    node: { ...b, displayName: names.get(b.userId) ?? null },
  }));
}

const FIRST = `1-${CONNECTION_LIMITS.maxFirst}, default ${CONNECTION_LIMITS.defaultFirst}.`;

builder.objectFields(DashboardSite, (t) => ({
  held: t.field({
    type: HeldConnection,
    description:
      "The site's comments held for review, oldest first. Needs a site role, or with pageSlug a moderator's role on that page.",
    args: { pageSlug: t.arg.string(), first: t.arg.int({ description: FIRST }), after: t.arg.string() },
    resolve: (site, args, ctx) =>
      heldComments(ctx, site.siteId, args.pageSlug ?? null, args.first ?? null, args.after ?? null),
  }),
  bannedAuthors: t.field({
    type: BannedConnection,
    description: "The site's banned authors in force, oldest ban first.",
    args: { first: t.arg.int({ description: FIRST }), after: t.arg.string() },
    resolve: (site, args, ctx) => bannedAuthors(ctx, site.siteId, args.first ?? null, args.after ?? null),
  }),
  moderation: t.field({
    type: ModerationSettingType,
    description: "The hold-for-review setting in force on the site, or with pageSlug on one page.",
    args: { pageSlug: t.arg.string() },
    resolve: async (site, args, ctx) => {
      await ctx.services.sites.requireReadable(site.siteId, args.pageSlug ?? undefined);
      return ctx.services.moderation.settingOf(site.siteId, args.pageSlug ?? null);
    },
  }),
}));

// Mutations.

/** The caller as a moderation act names them, checked as a moderator of the comment's page. */
async function pageModerator(ctx: GraphQLContext, siteId: string, pageSlug: string) {
  return requireSiteRole(ctx, siteId, "moderator", pageSlug);
}

/** The comment's page, checked: a role on the site first (so an outsider learns nothing), then 404, then the page role. */
async function moderatedComment(ctx: GraphQLContext, siteId: string, eventId: string) {
  await requireSiteReader(ctx, siteId);
  const comment = await ctx.services.moderation.commentOf(siteId, eventId);
  return { comment, actor: await pageModerator(ctx, siteId, comment.pageSlug) };
}

builder.mutationField("deleteComments", (t) =>
  t.field({
    extensions: DASHBOARD_FIELD,
    type: ["String"],
    description: `Deletes comments (1-${MAX_BULK_DELETE}, of one site): the AS bot redacts each with the reason "<who asked>: <reason>", so Matrix clients show who asked. A deleted comment stays deleted (no second redaction). Needs a moderator's role on each comment's page; an unknown comment is 404 comment-not-found and nothing is deleted. Returns the ids.`,
    args: {
      siteId: t.arg.string({ required: true }),
      eventIds: t.arg.stringList({ required: true }),
      reason: t.arg.string(),
    },
    resolve: async (_root, args, ctx) => {
      // Checked before the role lookups it would otherwise multiply.
      checkBulkSize(args.eventIds);
      let actor = null;
      for (const eventId of new Set(args.eventIds)) actor = (await moderatedComment(ctx, args.siteId, eventId)).actor;
      return ctx.services.moderation.deleteComments(args.siteId, args.eventIds, args.reason ?? null, actor!);
    },
  }),
);

const pinField = (pinned: boolean) =>
  builder.mutationField(pinned ? "pinComment" : "unpinComment", (t) =>
    t.field({
      extensions: DASHBOARD_FIELD,
      type: "Boolean",
      description: pinned
        ? "Pins a comment: added to its room's m.room.pinned_events (reads list pinned comments first, SSE announces pins_changed). Needs a moderator's role on its page."
        : "Unpins a comment (removed from m.room.pinned_events). Needs a moderator's role on its page.",
      args: { siteId: t.arg.string({ required: true }), eventId: t.arg.string({ required: true }) },
      resolve: async (_root, args, ctx) => {
        await moderatedComment(ctx, args.siteId, args.eventId);
        await ctx.services.moderation.setPinned(args.siteId, args.eventId, pinned);
        return pinned;
      },
    }),
  );
pinField(true);
pinField(false);

const closeField = (closed: boolean) =>
  builder.mutationField(closed ? "closePage" : "reopenPage", (t) =>
    t.field({
      extensions: DASHBOARD_FIELD,
      type: "Boolean",
      description: closed
        ? "Closes a page to new comments: its room's power levels need the moderator level to send (events_default 50), so visitor writes answer 403 page-closed and reads show closed. In force when it answers (true). Needs a moderator's role on the page."
        : "Reopens a closed page (events_default back to users_default). In force when it answers (true). Needs a moderator's role on the page.",
      args: { siteId: t.arg.string({ required: true }), pageSlug: t.arg.string({ required: true }) },
      resolve: async (_root, args, ctx) => {
        await pageModerator(ctx, args.siteId, args.pageSlug);
        await ctx.services.moderation.setClosed(args.siteId, args.pageSlug, closed);
        return true;
      },
    }),
  );
closeField(true);
closeField(false);

builder.mutationField("banAuthor", (t) =>
  t.field({
    extensions: DASHBOARD_FIELD,
    type: BannedAuthor,
    description:
      "Bans an author from a site, for durationSeconds or (without) until unbanned: recorded at once (their writes answer 403 author-banned), and the AS bot bans the user (a visitor's virtual user, or a Matrix account) in the site's Space and every page room with the reason \"<who asked>: <reason>\". A timed ban is lifted by a background pass. Needs a site manager.",
    args: {
      siteId: t.arg.string({ required: true }),
      publicKey: t.arg.string({ description: "A visitor's public key." }),
      mxid: t.arg.string({ description: "A Matrix account." }),
      reason: t.arg.string(),
      durationSeconds: t.arg.int({ description: "1 s to 10 years; omitted: until unbanned." }),
    },
    resolve: async (_root, args, ctx) => {
      const actor = await requireSiteRole(ctx, args.siteId, "manager");
      return ctx.services.moderation.ban(
        {
          siteId: args.siteId,
          target: { publicKey: args.publicKey, mxid: args.mxid },
          reason: args.reason ?? null,
          durationSeconds: args.durationSeconds ?? null,
        },
        actor,
      );
    },
  }),
);

builder.mutationField("unbanAuthor", (t) =>
  t.field({
    extensions: DASHBOARD_FIELD,
    type: "Boolean",
    description:
      "Lifts an author's ban: the AS bot unbans the user in the site's rooms, then their writes are accepted again. False when they were not banned. Needs a site manager.",
    args: {
      siteId: t.arg.string({ required: true }),
      publicKey: t.arg.string(),
      mxid: t.arg.string(),
    },
    resolve: async (_root, args, ctx) => {
      const actor = await requireSiteRole(ctx, args.siteId, "manager");
      return ctx.services.moderation.unban(args.siteId, { publicKey: args.publicKey, mxid: args.mxid }, actor);
    },
  }),
);

const reviewField = (approve: boolean) =>
  builder.mutationField(approve ? "approveHeldComment" : "rejectHeldComment", (t) =>
    t.field({
      extensions: DASHBOARD_FIELD,
      type: HeldComment,
      description: approve
        ? "Approves a held comment: it is queued and sent to Matrix as any other (once, however often or wherever it is approved). Needs a moderator's role on its page; 404 held-comment-not-found; 409 already-reviewed when it was rejected; 409 page-closed when its page is closed (it stays held: reopen the page, or reject it)."
        : "Rejects a held comment: it is never sent; its author's personalized read shows it rejected (for 7 days). Needs a moderator's role on its page; 409 already-reviewed when it was approved.",
      args: { siteId: t.arg.string({ required: true }), submissionId: t.arg.string({ required: true }) },
      resolve: async (_root, args, ctx) => {
        await requireSiteReader(ctx, args.siteId);
        const held = await ctx.services.moderation.heldOf(args.siteId, args.submissionId);
        const actor = await pageModerator(ctx, args.siteId, held.pageSlug);
        return ctx.services.moderation.review(args.siteId, args.submissionId, approve, actor);
      },
    }),
  );
reviewField(true);
reviewField(false);

builder.mutationField("setModeration", (t) =>
  t.field({
    extensions: DASHBOARD_FIELD,
    type: ModerationSettingType,
    description:
      "Sets the hold-for-review setting of a site, or with pageSlug of one page (which then overrides the site's). mode omitted removes the setting (the site's, then [sites.<id>], then off apply). words: at most 200, each at most 64 characters. Needs a site manager.",
    args: {
      siteId: t.arg.string({ required: true }),
      pageSlug: t.arg.string(),
      mode: t.arg({ type: HoldModeEnum }),
      words: t.arg.stringList({ defaultValue: [] }),
    },
    resolve: async (_root, args, ctx) => {
      await requireSiteRole(ctx, args.siteId, "manager");
      return ctx.services.moderation.setHoldSetting(
        args.siteId,
        args.pageSlug ?? null,
        args.mode ?? null,
        args.words ?? [],
      );
    },
  }),
);

// What a dashboard's page row adds: whether it is closed, what is pinned (one read of the page's
// room for both fields of a row).

const pageStates = new WeakMap<object, Promise<{ closed: boolean; pinned: string[] }>>();
const pageStateOf = (page: DashboardPage, ctx: GraphQLContext) => {
  let state = pageStates.get(page);
  if (!state) pageStates.set(page, (state = ctx.services.moderation.pageState(page.siteId, page.slug)));
  return state;
};

builder.objectFields(DashboardPageType, (t) => ({
  closed: t.boolean({
    description: "The page is closed to new comments (closePage, or its power levels set so in Matrix).",
    resolve: async (page, _args, ctx) => (await pageStateOf(page, ctx)).closed,
  }),
  pinned: t.stringList({
    description: "The event ids of the page's pinned comments (m.room.pinned_events), in pin order.",
    resolve: async (page, _args, ctx) => (await pageStateOf(page, ctx)).pinned,
  }),
}));

// What a page's comment read adds (closed and pinned from the room state the read's statement carries).

builder.objectFields(CommentPage, (t) => ({
  pinned: t.field({
    type: [Message],
    description:
      "The page's pinned comments (m.room.pinned_events), in pin order, deleted ones left out: a widget shows them first. On every page of the list; they stay in `data` at their place too.",
    resolve: (page, _args, ctx) => ctx.services.comments.pinned(page, roomPins(page.roomState)),
  }),
  closed: t.boolean({
    description: "The page is closed to new comments (writes answer 403 page-closed): a widget hides its composer.",
    resolve: (page) => isClosed(roomPowerLevels(page.roomState)),
  }),
  pending: t.field({
    type: [HeldComment],
    description:
      "A personalized read only: the viewer's own comments on the page that are held for review (status held), were rejected, or that the homeserver refused (status failed; both shown 7 days); empty otherwise.",
    resolve: (page, _args, ctx) =>
      page.viewerKey === null ? [] : ctx.services.moderation.pendingOf(page.siteId, page.pageSlug, page.viewerKey),
  }),
}));

builder.queryField("viewerPending", (t) =>
  t.field({
    type: [HeldComment],
    description:
      "The personal part of a personalized comment read, with viewerReactions: the verified viewer's held, rejected and failed comments on the page. The proof is the one of comments().",
    args: {
      siteId: t.arg.string({ required: true }),
      pageSlug: t.arg.string({ required: true }),
      authorPublicKey: t.arg.string(),
      authorSignature: t.arg.string(),
    },
    resolve: (_root, args, ctx) => {
      const viewerKey = ctx.services.comments.viewerKey({
        siteId: args.siteId,
        pageSlug: args.pageSlug,
        authorPublicKey: args.authorPublicKey ?? null,
        authorSignature: args.authorSignature ?? null,
      });
      return viewerKey === null ? [] : ctx.services.moderation.pendingOf(args.siteId, args.pageSlug, viewerKey);
    },
  }),
);
