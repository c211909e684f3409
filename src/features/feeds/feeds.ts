// Atom feeds of a site's and a page's newest comments, answered conditionally: the ETag is the
// document's digest (any change, an author's rename too, makes a new one), Last-Modified the
// scope's last comment write, edit or deletion.
import { createHash } from "node:crypto";
import type { Db } from "../../db/client.ts";
import { FEED_ENTRIES } from "../../config/limits.ts";
import { shownProfile } from "../../projection/members.ts";
import { checkPath, commentLink, siteNotFound, type Sites } from "../sites/sites.ts";
import { atomDocument, contentText, headline, type FeedEntry } from "./atom.ts";
import { FeedStore, type FeedScope } from "./feed-store.ts";

export interface FeedAnswer {
  /** 200, or 304 when the client's copy is current. */
  status: 200 | 304;
  headers: Record<string, string>;
  /** The document (null on a 304). */
  body: string | null;
}

/** A comment's permanent Atom id. */
export const commentUrn = (eventId: string) => `urn:matrix-comment:${encodeURIComponent(eventId)}`;

export class Feeds {
  private readonly store: FeedStore;

  constructor(
    db: Db,
    private readonly sites: Sites,
  ) {
    this.store = new FeedStore(db);
  }

  /**
   * The feed of `scope` for a request with `conditions` (its If-None-Match, If-Modified-Since);
   * `self`: the feed's own URL, when known. 404 for an unknown site.
   */
  async answer(
    scope: FeedScope,
    conditions: { ifNoneMatch?: string; ifModifiedSince?: string },
    self: string | null,
  ): Promise<FeedAnswer> {
    checkPath(scope.siteId, scope.pageSlug ?? undefined);
    const site = await this.store.site(scope.siteId);
    if (!site) throw siteNotFound(scope.siteId);
    const [comments, lastChange] = await Promise.all([
      this.store.recent(scope, FEED_ENTRIES),
      this.store.lastChange(scope),
    ]);
    const pattern = this.sites.pageUrlPatternOf(site);
    const entries: FeedEntry[] = comments.map((c) => {
      const text = contentText(JSON.parse(c.content) as Record<string, unknown>);
      const authorName = shownProfile(c.member, c).displayName ?? "Anonymous";
      const published = new Date(Number(c.originServerTs));
      return {
        id: commentUrn(c.eventId),
        title: `${authorName} on ${c.pageSlug}: ${headline(text)}`,
        authorName,
        published,
        updated: c.editedAt ?? published,
        text,
        link: commentLink(pattern, c.pageSlug, c.eventId),
      };
    });
    const where = scope.pageSlug === null ? scope.siteId : `${scope.siteId}/${scope.pageSlug}`;
    const document = atomDocument({
      id: `urn:matrix-comment-feed:${encodeURIComponent(scope.siteId)}${scope.pageSlug === null ? "" : `:${scope.pageSlug}`}`,
      title: `Comments on ${where}`,
      updated: lastChange ?? site.createdAt,
      self,
      entries,
    });
    const etag = `"${createHash("sha256").update(document).digest("base64url").slice(0, 32)}"`;
    const headers: Record<string, string> = {
      ETag: etag,
      "Cache-Control": "public, max-age=60",
      ...(lastChange === null ? {} : { "Last-Modified": lastChange.toUTCString() }),
    };
    if (notModified(conditions, etag, lastChange)) return { status: 304, headers, body: null };
    return {
      status: 200,
      headers: { "Content-Type": "application/atom+xml; charset=utf-8", ...headers },
      body: document,
    };
  }
}

/**
 * Whether a conditional GET is answered 304 (RFC 9110 §13.2.2): If-None-Match decides when sent
 * (weak comparison; `*` matches), else If-Modified-Since against the last change (in whole
 * seconds, as HTTP dates are). A date that does not parse is ignored.
 */
export function notModified(
  conditions: { ifNoneMatch?: string; ifModifiedSince?: string },
  etag: string,
  lastModified: Date | null,
): boolean {
  if (conditions.ifNoneMatch !== undefined) {
    const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
    return conditions.ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === opaque(etag));
  }
  if (conditions.ifModifiedSince === undefined || lastModified === null) return false;
  const since = Date.parse(conditions.ifModifiedSince);
  return !Number.isNaN(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}
