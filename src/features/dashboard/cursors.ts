// Keyset cursors of the dashboard's connections (pure): the last row's sort key, opaque to
// clients (base64url JSON), tied to the list and order it came from. Anything else a client
// sends as a cursor is refused with 400 invalid-cursor, never looked up.
import { DomainError } from "../../core/errors.ts";
import { MAX_CURSOR_LENGTH } from "../../config/limits.ts";

export type PageOrder = "slug" | "lastActivity" | "commentCount";

/** After this page: its sort value (slug order: the slug itself) and slug. */
export interface PageCursor {
  order: PageOrder;
  value: number | string;
  slug: string;
}

/** After this comment, newest first: its origin_server_ts and event id. */
export interface CommentCursor {
  ts: number;
  eventId: string;
}

export const encodePageCursor = (c: PageCursor): string => encode(["page", c.order, c.value, c.slug]);

export const encodeCommentCursor = (c: CommentCursor): string => encode(["comment", c.ts, c.eventId]);

export function decodePageCursor(cursor: string, order: PageOrder): PageCursor {
  const parts = decode(cursor);
  const [list, cursorOrder, value, slug] = parts;
  const valueFits = order === "slug" ? value === slug : Number.isSafeInteger(value);
  if (parts.length !== 4 || list !== "page" || cursorOrder !== order || !valueFits || !isText(slug))
    throw invalidCursor("is not a cursor of this list in this order");
  return { order, value: value as number | string, slug: slug as string };
}

export function decodeCommentCursor(cursor: string): CommentCursor {
  const parts = decode(cursor);
  const [list, ts, eventId] = parts;
  if (parts.length !== 3 || list !== "comment" || !Number.isSafeInteger(ts) || !isText(eventId))
    throw invalidCursor("is not a cursor of this list");
  return { ts: ts as number, eventId: eventId as string };
}

/** After this row of a list ordered by (time, id) ascending, e.g. held comments, bans. */
export interface KeysetCursor {
  at: Date;
  id: string;
}

export const encodeKeysetCursor = (list: string, c: KeysetCursor): string => encode([list, c.at.getTime(), c.id]);

export function decodeKeysetCursor(cursor: string, list: string): KeysetCursor {
  const parts = decode(cursor);
  const [name, at, id] = parts;
  if (parts.length !== 3 || name !== list || !Number.isSafeInteger(at) || !isText(id))
    throw invalidCursor("is not a cursor of this list");
  return { at: new Date(at as number), id: id as string };
}

const encode = (parts: unknown[]): string => Buffer.from(JSON.stringify(parts), "utf8").toString("base64url");

function decode(cursor: string): unknown[] {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor("is not one of ours");
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor("is not one of ours");
  }
  if (!Array.isArray(parts)) throw invalidCursor("is not one of ours");
  return parts;
}

const isText = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= 255;

const invalidCursor = (why: string) =>
  new DomainError("invalid-cursor", 400, `The cursor ${why}.`, { errors: [{ field: "after", message: why }] });
