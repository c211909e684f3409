// Comments: reading the projection (visitor writes go through src/writes/pipeline.ts).
import type { Db } from "../db/client.ts";
import { forbidden, validationError } from "./errors.ts";
import type { Sites } from "./sites.ts";
import { parsePublicKey, parseSignature, signatureArrays, verifySignature } from "../security/author-proof.ts";
import { checkPagination } from "./pagination.ts";

export interface ListCommentsInput {
  siteId: string;
  pageSlug: string;
  page: number;
  perPage: number;
  order: "asc" | "desc";
  /** Optional personalization: a visitor key and its signature over QUERY_COMMENTS. */
  authorPublicKey: string | null;
  authorSignature: string | null;
}

export class Comments {
  constructor(
    private readonly db: Db,
    private readonly sites: Sites,
  ) {}

  async list(input: ListCommentsInput) {
    await this.sites.requireReadable(input.siteId, input.pageSlug);
    checkPagination(input.page, input.perPage);
    const viewer = personalization(input);
    const where = { siteId: input.siteId, pageSlug: input.pageSlug };
    const [total, rows] = await Promise.all([
      this.db.comment.count({ where }),
      this.db.comment.findMany({
        where,
        orderBy: [{ originServerTs: input.order }, { eventId: input.order }],
        skip: (input.page - 1) * input.perPage,
        take: input.perPage,
      }),
    ]);
    return { rows, total, page: input.page, perPage: input.perPage, viewer };
  }
}

/**
 * The verified viewer key of a personalized read (it decides `mine` on reactions), or null
 * for an anonymous one. A malformed or non-verifying proof is an error, not a silent
 * downgrade, so client bugs show.
 */
function personalization(input: ListCommentsInput): string | null {
  if (input.authorPublicKey === null && input.authorSignature === null) return null;
  const key = parsePublicKey(input.authorPublicKey);
  const signature = parseSignature(input.authorSignature);
  if (!key || !signature) {
    throw validationError("Personalization needs both author_public_key and author_signature.", [
      ...(key ? [] : [{ field: "author_public_key", message: "must be a base64url Ed25519 public key (32 bytes)" }]),
      ...(signature ? [] : [{ field: "author_signature", message: "must be a base64url Ed25519 signature (64 bytes)" }]),
    ]);
  }
  if (!verifySignature(key.bytes, signature, signatureArrays.queryComments(input.siteId, input.pageSlug))) {
    throw forbidden("invalid-signature", 'author_signature does not verify over ["QUERY_COMMENTS", site_id, page_slug].');
  }
  return key.text;
}
