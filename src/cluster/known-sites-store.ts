// The site ids a reconnected signal listener drops the caches of (it may have missed their changes).
import type { Db } from "../db/client.ts";

export async function knownSiteIds(db: Db): Promise<string[]> {
  return (await db.site.findMany({ select: { id: true } })).map((site) => site.id);
}
