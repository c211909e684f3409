// The dashboard's reads of a site, with their inputs checked: connection sizes, search lengths,
// cursors, day windows. Callers have checked the governor's access first (access.ts).
import { notFound, validationError } from "../../core/errors.ts";
import { isValidEventId, isValidPageSlug } from "../../core/identifiers.ts";
import type { Db } from "../../db/client.ts";
import type { MessageRow } from "../comments/comment-read-store.ts";
import {
  decodeCommentCursor,
  decodePageCursor,
  encodeCommentCursor,
  encodePageCursor,
  type PageOrder,
} from "./cursors.ts";
import { type CommentFilter, DashboardStore, type PageRow } from "./dashboard-store.ts";

export const CONNECTION_LIMITS = { defaultFirst: 20, maxFirst: 100, maxSearch: 200, maxDays: 366, threadMax: 200 };

export interface Connection<T> {
  edges: Array<{ cursor: string; node: T }>;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

export interface DashboardPage extends PageRow {
  siteId: string;
  roomId: string | null;
  /** "active", "quarantined", "retiring", or "none" before the page has a room. */
  roomState: string;
}

export interface Thread {
  comment: MessageRow;
  /** The thread's root (the comment itself when it starts the thread). */
  root: MessageRow | null;
  /** The comment it replies to, if any. */
  parent: MessageRow | null;
  /** The root and every comment in its thread, oldest first (up to CONNECTION_LIMITS.threadMax). */
  messages: MessageRow[];
}

export interface DailyCount {
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  comments: number;
  authors: number;
}

const DAY_MS = 86_400_000;

export class Dashboard {
  private readonly store: DashboardStore;

  constructor(db: Db) {
    this.store = new DashboardStore(db);
  }

  async pages(
    siteId: string,
    args: { first: number | null; after: string | null; order: PageOrder; search: string | null },
  ): Promise<Connection<DashboardPage>> {
    const first = checkFirst(args.first);
    const search = checkSearch(args.search);
    const after = args.after === null ? null : decodePageCursor(args.after, args.order);
    const rows = await this.store.pages(siteId, args.order, search, after, first + 1);
    const shown = rows.slice(0, first);
    const rooms = await this.store.roomStates(
      siteId,
      shown.map((r) => r.slug),
    );
    return connection(rows, first, (row) => {
      const room = rooms.get(row.slug);
      return {
        cursor: encodePageCursor({ order: args.order, value: pageSortValue(row, args.order), slug: row.slug }),
        node: { siteId, roomId: room?.roomId ?? null, roomState: room?.state ?? "none", ...row },
      };
    });
  }

  async comments(
    siteId: string,
    args: { first: number | null; after: string | null } & Omit<CommentFilter, "search"> & { search: string | null },
  ): Promise<Connection<MessageRow>> {
    const first = checkFirst(args.first);
    if (args.pageSlug !== null && !isValidPageSlug(args.pageSlug))
      throw validationError("Invalid page slug.", [{ field: "pageSlug", message: "is not a page slug" }]);
    if (args.author !== null && (args.author.length === 0 || args.author.length > 255))
      throw validationError("Invalid author.", [{ field: "author", message: "must be 1-255 characters" }]);
    const filter = { ...args, search: checkSearch(args.search) };
    const after = args.after === null ? null : decodeCommentCursor(args.after);
    const rows = await this.store.comments(siteId, filter, after, first + 1);
    return connection(rows, first, (row) => ({
      cursor: encodeCommentCursor({ ts: Number(row.originServerTs), eventId: row.eventId }),
      node: row,
    }));
  }

  async thread(siteId: string, eventId: string): Promise<Thread> {
    if (!isValidEventId(eventId))
      throw validationError("Invalid event id.", [{ field: "eventId", message: "is not a Matrix event id" }]);
    const comment = await this.store.comment(siteId, eventId);
    if (!comment) throw notFound("comment-not-found", `Site ${siteId} has no comment ${eventId}.`);
    const rootId = comment.threadRoot ?? comment.eventId;
    const [messages, parent] = await Promise.all([
      this.store.thread(siteId, rootId, CONNECTION_LIMITS.threadMax),
      comment.replyTo ? this.store.comment(siteId, comment.replyTo) : null,
    ]);
    return { comment, root: messages.find((m) => m.eventId === rootId) ?? null, parent, messages };
  }

  /** The last `days` UTC days, today included, oldest first; days without comments count 0. */
  async dailyCounts(siteId: string, days: number, now = Date.now()): Promise<DailyCount[]> {
    if (!Number.isInteger(days) || days < 1 || days > CONNECTION_LIMITS.maxDays)
      throw validationError("Invalid days.", [
        { field: "days", message: `must be an integer from 1 to ${CONNECTION_LIMITS.maxDays}` },
      ]);
    const today = Math.floor(now / DAY_MS);
    const firstDay = today - days + 1;
    const counted = new Map((await this.store.dailyCounts(siteId, firstDay * DAY_MS)).map((r) => [r.day, r]));
    return Array.from({ length: days }, (_, i) => {
      const day = firstDay + i;
      const row = counted.get(day);
      return {
        date: new Date(day * DAY_MS).toISOString().slice(0, 10),
        comments: row?.comments ?? 0,
        authors: row?.authors ?? 0,
      };
    });
  }

  siteIds(): Promise<string[]> {
    return this.store.siteIds();
  }
}

export function connection<Row, Node>(
  rows: Row[],
  first: number,
  edge: (row: Row) => { cursor: string; node: Node },
): Connection<Node> {
  const edges = rows.slice(0, first).map(edge);
  return { edges, pageInfo: { hasNextPage: rows.length > first, endCursor: edges.at(-1)?.cursor ?? null } };
}

const pageSortValue = (row: PageRow, order: PageOrder): number | string =>
  order === "slug" ? row.slug : order === "lastActivity" ? row.lastActivity : row.commentCount;

export function checkFirst(first: number | null): number {
  const n = first ?? CONNECTION_LIMITS.defaultFirst;
  if (!Number.isInteger(n) || n < 1 || n > CONNECTION_LIMITS.maxFirst)
    throw validationError("Invalid first.", [
      { field: "first", message: `must be an integer from 1 to ${CONNECTION_LIMITS.maxFirst}` },
    ]);
  return n;
}

function checkSearch(search: string | null): string | null {
  if (search === null || search === "") return null;
  if (search.length > CONNECTION_LIMITS.maxSearch)
    throw validationError("Search text too long.", [
      { field: "search", message: `must be at most ${CONNECTION_LIMITS.maxSearch} characters` },
    ]);
  return search;
}
