// The MediaUpload aggregate: every visitor upload on record, so a media comment may post only
// its author's own uploads for the site, and a replayed upload answers the same URL.
import type { Prisma, Tx } from "../../db/client.ts";

export function findUpload(db: Tx, url: string) {
  return db.mediaUpload.findUnique({ where: { url } });
}

/** Records an upload in the write's transaction. */
export async function recordUpload(tx: Tx, upload: Prisma.MediaUploadUncheckedCreateInput): Promise<void> {
  await tx.mediaUpload.create({ data: upload });
}
