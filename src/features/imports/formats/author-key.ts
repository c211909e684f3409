// An imported author's identity in its source: an account id where the source has one, else a
// digest of the email (never the email itself: it stays out of Matrix, logs and the spool),
// else the name.
import { createHash } from "node:crypto";

export function authorKey(
  source: string,
  ids: { account?: string | null; email?: string | null; name?: string | null },
): string {
  if (ids.account) return `${source}:account:${ids.account}`;
  const email = ids.email?.trim().toLowerCase();
  if (email) return `${source}:email:${createHash("sha256").update(email).digest("hex")}`;
  return `${source}:name:${ids.name?.trim() ?? ""}`;
}
