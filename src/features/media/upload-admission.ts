// What an upload's proof can be checked for before its body is read: the site, the formats of
// key and signature, and the challenge (issued here, live, unspent, its proof of work). Only the
// signature itself needs the bytes (it covers their hash), so a client without a solved,
// unspent challenge never makes the service buffer up to a size cap of bytes.
import { validationError } from "../../core/errors.ts";
import { parseAuthorProof } from "../../security/author-proof.ts";

export interface UploadAdmissionServices {
  sites: { requireWritable(siteId: string, pageSlug?: string): Promise<unknown> };
  challenges: { check(challengeResponse: string): Promise<unknown> };
}

/** Throws the problem the write pipeline would answer for these, before the body is read. */
export async function admitUpload(input: { params: Record<string, string>; query: Record<string, string> }, services: UploadAdmissionServices): Promise<void> {
  await services.sites.requireWritable(input.params.site_id!, input.params.page_slug);
  const proof = parseAuthorProof(input.query);
  if (Array.isArray(proof)) throw validationError("The request is invalid.", proof);
  await services.challenges.check(proof.challengeResponse);
}
