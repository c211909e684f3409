// Comments: reading the projection (visitor writes go through src/writes/pipeline.ts).
import { signatureArrays } from "../../contract/signatures.ts";
import type { Db } from "../../db/client.ts";
import { forbidden, validationError } from "../../core/errors.ts";
import { parsePublicKey, parseSignature, verifySignature } from "../../security/author-proof.ts";
import { checkPagination, MAX_PER_PAGE, rankWindow } from "../../core/pagination.ts";
import { checkPath, siteNotFound } from "../sites/sites.ts";
import type { MatrixNames } from "../../matrix/names.ts";
import {
  CommentReadStore,
  type CommentOrder,
  type ListedComment,
  type PageCount,
  type PageKey,
} from "./comment-read-store.ts";
import { isValidPageSlug } from "../../core/identifiers.ts";
import { MAX_COUNTED_PAGES } from "../../config/limits.ts";
import { setBounded } from "../../core/bounded-map.ts";

export interface ListCommentsInput {
  siteId: string;
  pageSlug: string;
  page: number;
  perPage: number;
  order: CommentOrder;
  /** Optional personalization: a visitor key and its signature over QUERY_COMMENTS. */
  authorPublicKey: string | null;
  authorSignature: string | null;
}

export class Comments {
  private readonly store: CommentReadStore;

  constructor(
    db: Db,
    private readonly names: MatrixNames,
  ) {
    this.store = new CommentReadStore(db);
  }

  /**
   * Proof (as sent) → the viewer's virtual user (null: an anonymous read); a bounded memo of what
   * verified, so a repeated proof costs no signature check.
   */
  private readonly verifiedViewers = new Map<string, string>();

  private verifiedViewer(
    input: Pick<ListCommentsInput, "siteId" | "pageSlug" | "authorPublicKey" | "authorSignature">,
  ): string | null {
    if (input.authorPublicKey === null && input.authorSignature === null) return null;
    const proof = `${input.siteId}\u0000${input.pageSlug}\u0000${input.authorPublicKey}\u0000${input.authorSignature}`;
    const known = this.verifiedViewers.get(proof);
    if (known !== undefined) return known;
    const viewer = personalization(input);
    const userId = this.names.visitorUserId(input.siteId, Buffer.from(viewer, "base64url"));
    setBounded(this.verifiedViewers, proof, userId, VERIFIED_VIEWERS);
    return userId;
  }

  async list(input: ListCommentsInput) {
    checkPath(input.siteId, input.pageSlug);
    checkPagination(input.page, input.perPage);
    const { first, last } = rankWindow(input.page, input.perPage);
    // An unknown site is a 404 before a personalization proof is judged, as on a cached read
    // (the anonymous page first, then the viewer's part).
    let viewer: string | null = null;
    let refused: unknown = null;
    try {
      viewer = this.verifiedViewer(input);
    } catch (err) {
      refused = err;
    }
    const found = await this.store.page(
      { siteId: input.siteId, pageSlug: input.pageSlug },
      first,
      last,
      input.order,
      viewer,
    );
    if (found === null) throw siteNotFound(input.siteId);
    if (refused !== null) throw refused;
    return {
      rows: found.comments,
      total: found.total,
      page: input.page,
      perPage: input.perPage,
      viewerKey: viewer === null ? null : parsePublicKey(input.authorPublicKey)!.text,
      roomState: found.roomState,
    };
  }

  /**
   * The personal part of a personalized read: which of `eventIds` (a page of comments already
   * read anonymously) the verified viewer reacted to, and with which keys.
   */
  async viewerReactions(input: ViewerReactionsInput): Promise<Array<{ eventId: string; key: string }>> {
    checkPath(input.siteId, input.pageSlug);
    if (input.eventIds.length > MAX_PER_PAGE)
      throw validationError("Too many event ids.", [{ field: "eventIds", message: `at most ${MAX_PER_PAGE}` }]);
    const sender = this.verifiedViewer(input);
    if (sender === null || input.eventIds.length === 0) return [];
    return (await this.store.viewerReactions(sender, input.eventIds)).map((r) => ({
      eventId: r.targetEventId,
      key: r.key,
    }));
  }

  /** A page's pinned comments (`pinned`: their ids in pin order), in pin order, deleted ones left out. */
  async pinned(page: PageKey, pinned: string[]): Promise<ListedComment[]> {
    const byId = new Map((await this.store.pageComments(page, [...new Set(pinned)])).map((c) => [c.eventId, c]));
    return pinned.flatMap((id) => byId.get(id) ?? []);
  }

  /**
   * Each asked page's standing comments (deleted ones leave the count) and the newest one's time,
   * in the order asked; a page without comments (or unknown) counts 0. 404 for an unknown site.
   */
  async pageCounts(siteId: string, pages: string[]): Promise<PageCount[]> {
    checkPath(siteId);
    if (pages.length > MAX_COUNTED_PAGES)
      throw validationError("Too many pages.", [{ field: "pages", message: `at most ${MAX_COUNTED_PAGES}` }]);
    const bad = pages.findIndex((slug) => !isValidPageSlug(slug));
    if (bad >= 0)
      throw validationError("Invalid page slug.", [
        { field: `pages[${bad}]`, message: "must be 1-64 characters of [a-z0-9-]" },
      ]);
    const distinct = [...new Set(pages)];
    const counts =
      distinct.length === 0
        ? await this.store.pageCounts(siteId, [""]) // the site's existence only: no slug is empty
        : await this.store.pageCounts(siteId, distinct);
    if (counts === null) throw siteNotFound(siteId);
    return pages.map((pageSlug) => counts.get(pageSlug) ?? { pageSlug, commentCount: 0, lastCommentAt: null });
  }

  /** The verified viewer key of a personalized read's proof (null: an anonymous read); 400/403 as list. */
  viewerKey(
    input: Pick<ListCommentsInput, "siteId" | "pageSlug" | "authorPublicKey" | "authorSignature">,
  ): string | null {
    checkPath(input.siteId, input.pageSlug);
    return this.verifiedViewer(input) === null ? null : parsePublicKey(input.authorPublicKey)!.text;
  }

  /** One comment as projected, or null. */
  find(eventId: string) {
    return this.store.find(eventId);
  }
}

/** Personalization proofs remembered as verified: a client repeats its proof on every read of a page. */
const VERIFIED_VIEWERS = 10_000;

export interface ViewerReactionsInput {
  siteId: string;
  pageSlug: string;
  eventIds: string[];
  authorPublicKey: string | null;
  authorSignature: string | null;
}

/**
 * The verified viewer key of a personalized read (it decides `mine` on reactions). A malformed,
 * half or non-verifying proof is an error, not a silent downgrade, so client bugs show.
 */
function personalization(
  input: Pick<ListCommentsInput, "siteId" | "pageSlug" | "authorPublicKey" | "authorSignature">,
): string {
  const key = parsePublicKey(input.authorPublicKey);
  const signature = parseSignature(input.authorSignature);
  if (!key || !signature) {
    throw validationError("Personalization needs both author_public_key and author_signature.", [
      ...(key ? [] : [{ field: "author_public_key", message: "must be a base64url Ed25519 public key (32 bytes)" }]),
      ...(signature
        ? []
        : [{ field: "author_signature", message: "must be a base64url Ed25519 signature (64 bytes)" }]),
    ]);
  }
  if (!verifySignature(key.bytes, signature, signatureArrays.queryComments(input.siteId, input.pageSlug))) {
    throw forbidden(
      "invalid-signature",
      'author_signature does not verify over ["QUERY_COMMENTS", site_id, page_slug].',
    );
  }
  return key.text;
}
