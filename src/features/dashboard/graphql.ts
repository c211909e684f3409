// GraphQL for dashboards: who is signed in and what they govern (me), a site's pages, comments,
// threads and daily counts (keyset connections), its live activity, and the sign-in and
// sign-out behind the REST routes. Each root field checks the caller itself (access.ts) and
// carries DASHBOARD_FIELD, so /graphql lets dashboard sessions call it.
import { validationError } from "../../core/errors.ts";
import { isValidSiteId } from "../../core/identifiers.ts";
import { builder } from "../../graphql/builder.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import type { MessageRow } from "../comments/comment-read-store.ts";
import { Message } from "../comments/graphql.ts";
import { liveEventMessage, liveEventPayload } from "../live/graphql.ts";
import type { Config } from "../../config/config.ts";
import type { LiveEvent } from "../../db/client.ts";
import type { ObjectRef } from "@pothos/core";
import {
  crossOrigin,
  currentGovernor,
  type Governor,
  invalidSession,
  notSignedIn,
  presentedToken,
  requireSiteReader,
  sameOrigin,
} from "./access.ts";
import { AccessStore } from "./access-store.ts";
import type { PageOrder } from "./cursors.ts";
import {
  CONNECTION_LIMITS,
  type Connection,
  type DailyCount,
  type Dashboard,
  type DashboardPage,
  type Thread,
} from "./dashboard.ts";
import { type GovernorRole, pageRolesOf, siteRoleOf } from "./governor-roles.ts";
import { DASHBOARD_FIELD } from "./root-fields.ts";
import { clearedSessionCookie, servedOverHttps, sessionCookieHeader } from "./session-cookie.ts";
import type { SiteActivity } from "./site-activity.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    dashboard: Dashboard;
    siteActivity: SiteActivity;
    config: Config;
  }
}

const GovernorRoleType = builder.enumType("GovernorRole", {
  description: "A role from power levels: admin ≥ 100, manager ≥ 75, moderator ≥ 50.",
  values: ["admin", "manager", "moderator"] as const,
});
const GovernorKindType = builder.enumType("GovernorKind", {
  description: "operator: the operator token (every site); matrix: a Matrix user signed in with OpenID.",
  values: ["operator", "matrix"] as const,
});

const GovernedPage = builder.simpleObject("GovernedPage", {
  description: "A page where the user holds a role above their site role (a page moderator's page).",
  fields: (t) => ({ pageSlug: t.string(), role: t.field({ type: GovernorRoleType }) }),
});

interface GovernedSiteShape {
  siteId: string;
  role: GovernorRole | null;
  pages: Array<{ pageSlug: string; role: GovernorRole }>;
}

const GovernedSite = builder.objectRef<GovernedSiteShape>("GovernedSite").implement({
  description: "A site the user governs: their site role (from the Space's power levels) and their page roles.",
  fields: (t) => ({
    siteId: t.exposeString("siteId"),
    role: t.expose("role", { type: GovernorRoleType, nullable: true, description: "Null: page roles only." }),
    pages: t.expose("pages", { type: [GovernedPage] }),
  }),
});

const Me = builder.objectRef<{ governor: Governor; sites: GovernedSiteShape[] }>("Me").implement({
  description: "The signed-in caller and what they govern, from the projected power levels now.",
  fields: (t) => ({
    kind: t.field({ type: GovernorKindType, resolve: (me) => me.governor.kind }),
    userId: t.string({
      nullable: true,
      description: "The Matrix user id; null for the operator.",
      resolve: (me) => (me.governor.kind === "matrix" ? me.governor.userId : null),
    }),
    sites: t.expose("sites", {
      type: [GovernedSite],
      description: "Sites by id. The operator governs every site (as admin).",
    }),
  }),
});

const PageInfo = builder.simpleObject("DashboardPageInfo", {
  fields: (t) => ({ hasNextPage: t.boolean(), endCursor: t.string({ nullable: true }) }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** A connection type: edges with opaque keyset cursors, and pageInfo. */
export function connectionType<Node>(name: string, nodeType: ObjectRef<Types, Node>) {
  const Edge = builder.objectRef<{ cursor: string; node: Node }>(`${name}Edge`).implement({
    fields: (t) => ({
      cursor: t.exposeString("cursor", { description: "Opaque: pass it as `after` for the rows after this one." }),
      // Pothos cannot tell a generic Node is a valid result of nodeType; it is by construction.
      node: t.field({ type: nodeType, resolve: (e) => e.node as never }),
    }),
  });
  return builder.objectRef<Connection<Node>>(`${name}Connection`).implement({
    fields: (t) => ({
      edges: t.field({ type: [Edge], resolve: (c) => c.edges }),
      pageInfo: t.field({ type: PageInfo, resolve: (c) => c.pageInfo }),
    }),
  });
}

export const DashboardPageType = builder.objectRef<DashboardPage>("DashboardPage").implement({
  description: "A page of the site: every page with a room or a comment.",
  fields: (t) => ({
    slug: t.exposeString("slug"),
    commentCount: t.exposeInt("commentCount", {
      description: "Standing comments on the page: deleted ones leave the count, as in the public page counts.",
    }),
    lastActivityAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When its newest comment was posted; null: no comments.",
      resolve: (p) => (p.lastActivity > 0 ? new Date(p.lastActivity) : null),
    }),
    roomId: t.exposeString("roomId", { nullable: true }),
    roomState: t.exposeString("roomState", {
      description: "The state of its current room: active, quarantined, retiring, or none before it has one.",
    }),
  }),
});

const PageConnection = connectionType("DashboardPage", DashboardPageType);
const CommentConnection = connectionType<MessageRow>("DashboardComment", Message as ObjectRef<Types, MessageRow>);

const PageOrderType = builder.enumType("DashboardPageOrder", {
  values: {
    lastActivity: { description: "Newest comment first (pages without comments last), then slug." },
    commentCount: { description: "Most comments first, then slug." },
    slug: { description: "By slug." },
  } as const,
});
const AuthorKindType = builder.enumType("CommentAuthorKind", { values: ["visitor", "matrix"] as const });
const CommentStatusType = builder.enumType("CommentStatus", { values: ["published", "edited", "redacted"] as const });

const ThreadType = builder.objectRef<Thread>("CommentThread").implement({
  description: "A comment in context: its thread's root and messages, and the comment it replies to.",
  fields: (t) => ({
    comment: t.field({ type: Message, resolve: (th) => th.comment }),
    root: t.field({ type: Message, nullable: true, resolve: (th) => th.root }),
    parent: t.field({ type: Message, nullable: true, resolve: (th) => th.parent }),
    messages: t.field({
      type: [Message],
      description: `The root and every comment in its thread, oldest first (at most ${CONNECTION_LIMITS.threadMax}).`,
      resolve: (th) => th.messages,
    }),
  }),
});

const DailyCountType = builder.simpleObject("DailyCount", {
  fields: (t) => ({
    date: t.string({ description: "The UTC day, YYYY-MM-DD." }),
    comments: t.int({ description: "Comments posted that day (deleted ones included)." }),
    authors: t.int({ description: "Distinct authors of those comments." }),
  }),
});

/** A site as its governors read it; the moderation feature adds its held comments and bans. */
export const DashboardSite = builder.objectRef<{ siteId: string; governor: Governor }>("DashboardSite").implement({
  description: "A site's dashboard: what its governors (and the operator) read.",
  fields: (t) => ({
    siteId: t.exposeString("siteId"),
    pages: t.field({
      type: PageConnection,
      args: {
        first: t.arg.int({
          description: `1-${CONNECTION_LIMITS.maxFirst}, default ${CONNECTION_LIMITS.defaultFirst}.`,
        }),
        after: t.arg.string(),
        orderBy: t.arg({ type: PageOrderType, defaultValue: "lastActivity" }),
        search: t.arg.string({
          description: `Text the slug contains (at most ${CONNECTION_LIMITS.maxSearch} characters).`,
        }),
      },
      resolve: (site, args, ctx) =>
        ctx.services.dashboard.pages(site.siteId, {
          first: args.first ?? null,
          after: args.after ?? null,
          order: (args.orderBy ?? "lastActivity") as PageOrder,
          search: args.search ?? null,
        }),
    }),
    comments: t.field({
      type: CommentConnection,
      description: "The site's comments, newest first.",
      args: {
        first: t.arg.int({
          description: `1-${CONNECTION_LIMITS.maxFirst}, default ${CONNECTION_LIMITS.defaultFirst}.`,
        }),
        after: t.arg.string(),
        pageSlug: t.arg.string(),
        author: t.arg.string({ description: "A Matrix user id (the sender) or a visitor's public key." }),
        kind: t.arg({ type: AuthorKindType }),
        status: t.arg({ type: CommentStatusType }),
        search: t.arg.string({
          description: `Text the comment's content contains (at most ${CONNECTION_LIMITS.maxSearch} characters).`,
        }),
      },
      resolve: (site, args, ctx) =>
        ctx.services.dashboard.comments(site.siteId, {
          first: args.first ?? null,
          after: args.after ?? null,
          pageSlug: args.pageSlug ?? null,
          author: args.author ?? null,
          kind: args.kind ?? null,
          status: args.status ?? null,
          search: args.search ?? null,
        }),
    }),
    thread: t.field({
      type: ThreadType,
      args: { eventId: t.arg.string({ required: true }) },
      resolve: (site, args, ctx) => ctx.services.dashboard.thread(site.siteId, args.eventId),
    }),
    dailyCounts: t.field({
      type: [DailyCountType],
      description: "The last `days` UTC days, today included, oldest first.",
      args: { days: t.arg.int({ defaultValue: 30, description: `1-${CONNECTION_LIMITS.maxDays}` }) },
      resolve: (site, args, ctx): Promise<DailyCount[]> =>
        ctx.services.dashboard.dailyCounts(site.siteId, args.days ?? 30),
    }),
  }),
});

builder.queryField("me", (t) =>
  t.field({
    type: Me,
    extensions: DASHBOARD_FIELD,
    resolve: async (_root, _args, ctx) => {
      const governor = await currentGovernor(ctx);
      return { governor, sites: await governedSites(ctx, governor) };
    },
  }),
);

async function governedSites(ctx: GraphQLContext, governor: Governor): Promise<GovernedSiteShape[]> {
  if (governor.kind === "operator")
    return (await ctx.services.dashboard.siteIds()).map((siteId) => ({ siteId, role: "admin", pages: [] }));
  const access = new AccessStore(ctx.services.db);
  const sites = await Promise.all(
    (await access.sitesNaming(governor.userId)).map(async (siteId) => {
      const rooms = await access.siteRoomLevels(siteId);
      return { siteId, role: siteRoleOf(rooms, governor.userId), pages: pageRolesOf(rooms, governor.userId) };
    }),
  );
  return sites.filter((s) => s.role !== null || s.pages.length > 0);
}

builder.queryField("dashboardSite", (t) =>
  t.field({
    type: DashboardSite,
    description: "A site's dashboard, for anyone holding a role on it (a page moderator included) and the operator.",
    extensions: DASHBOARD_FIELD,
    args: { siteId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      if (!isValidSiteId(args.siteId))
        throw validationError("Invalid site id.", [{ field: "siteId", message: "is not a site id" }]);
      const governor = await requireSiteReader(ctx, args.siteId);
      await ctx.services.sites.requireReadable(args.siteId);
      return { siteId: args.siteId, governor };
    },
  }),
);

const ActivityTypeOf: Record<string, string> = {
  message_created: "created",
  message_updated: "edited",
  message_deleted: "deleted",
  comment_held: "held",
  comment_approved: "approved",
  comment_rejected: "rejected",
  comment_failed: "failed",
};

const SiteActivityEvent = builder.objectRef<LiveEvent>("SiteActivityEvent").implement({
  description: "Something that happened to a comment of the site.",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "Monotonic; pass it as `after` to resume." }),
    type: t.string({
      description:
        "created, edited, deleted (a comment in Matrix); held, approved, rejected (a comment held for review); failed (a new comment the homeserver refused, reason its refusal).",
      resolve: (event) => ActivityTypeOf[event.type] ?? event.type,
    }),
    pageSlug: t.string({
      resolve: (event) =>
        event.pageSlug !== ""
          ? event.pageSlug
          : String((JSON.parse(event.payload ?? "{}") as { page_slug?: unknown }).page_slug),
    }),
    eventId: t.exposeString("eventId", {
      nullable: true,
      description: "The comment's Matrix event id (created, edited, deleted).",
    }),
    message: t.field({
      type: Message,
      nullable: true,
      description: "The comment as it is now, for created and edited.",
      resolve: liveEventMessage,
    }),
    payload: t.field({
      type: "JSON",
      nullable: true,
      description:
        "deleted: {event_id, submission_id?}; held, approved, rejected, failed: {page_slug, submission_id, reason?, by?}.",
      resolve: liveEventPayload,
    }),
  }),
});

builder.subscriptionField("siteActivity", (t) =>
  t.field({
    type: SiteActivityEvent,
    description:
      "The site's comments created, edited, deleted, held, approved, rejected and failed, live (over /graphql/stream). The stream ends with an error once the caller no longer holds a role on the site or their session ended.",
    extensions: DASHBOARD_FIELD,
    args: {
      siteId: t.arg.string({ required: true }),
      after: t.arg.int({ description: "Resume after this event id; default: only new events." }),
    },
    subscribe: async (_root, args, ctx) => {
      if (!isValidSiteId(args.siteId))
        throw validationError("Invalid site id.", [{ field: "siteId", message: "is not a site id" }]);
      await requireSiteReader(ctx, args.siteId);
      await ctx.services.sites.requireReadable(args.siteId);
      return ctx.services.siteActivity.open(args.siteId, args.after ?? null, async () => {
        await requireSiteReader(ctx, args.siteId);
      });
    },
    resolve: (event) => event,
  }),
);

const SignedIn = builder.simpleObject("DashboardSession", {
  fields: (t) => ({
    sessionToken: t.string({ description: "Authorization: Bearer <sessionToken>, until expiresAt or sign-out." }),
    userId: t.string({ description: "The Matrix user the homeserver vouched for." }),
    expiresAt: t.field({ type: "DateTime" }),
    cookie: t.string({ description: "The Set-Cookie value that keeps the session for a same-origin dashboard." }),
  }),
});

builder.mutationField("dashboardSignIn", (t) =>
  t.field({
    type: SignedIn,
    description:
      "Exchanges a Matrix OpenID token (POST /_matrix/client/v3/user/{userId}/openid/request_token) for a dashboard session; the homeserver verifies it.",
    args: {
      matrixServerName: t.arg.string({ required: true }),
      accessToken: t.arg.string({ required: true }),
    },
    resolve: async (_root, args, ctx) => {
      const session = await ctx.services.dashboardSessions.signIn(args.matrixServerName, args.accessToken);
      const ttl = Math.round((session.expiresAt.getTime() - Date.now()) / 1000);
      return {
        sessionToken: session.token,
        userId: session.userId,
        expiresAt: session.expiresAt,
        cookie: sessionCookieHeader(session.token, ttl, httpsOf(ctx)),
      };
    },
  }),
);

builder.mutationField("dashboardSignOut", (t) =>
  t.field({
    type: builder.simpleObject("DashboardSignedOut", {
      fields: (f) => ({ cookie: f.string({ description: "The Set-Cookie value that drops the session cookie." }) }),
    }),
    description: "Ends the caller's dashboard session (the one presented): its token is refused from now on.",
    extensions: DASHBOARD_FIELD,
    resolve: async (_root, _args, ctx) => {
      const presented = presentedToken(ctx);
      if (!presented) throw notSignedIn();
      if (
        presented.via === "cookie" &&
        ctx.request &&
        !sameOrigin(ctx.request.headers, ctx.services.config.server.publicBaseUrl)
      )
        throw crossOrigin();
      if (!(await ctx.services.dashboardSessions.signOut(presented.token))) throw invalidSession();
      return { cookie: clearedSessionCookie(httpsOf(ctx)) };
    },
  }),
);

const httpsOf = (ctx: GraphQLContext) => servedOverHttps(ctx.services.config.server.publicBaseUrl, ctx.request);
