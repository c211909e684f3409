// Service-wide secrets kept in the database, so every instance sharing it agrees on them.
import { randomBytes } from "node:crypto";
import { isUniqueViolation, type Db } from "../db/client.ts";

/** Returns the stored secret `key`, creating it (32 random bytes) on first use. */
export async function sharedSecret(db: Db, key: string): Promise<Buffer> {
  const existing = await db.serviceSetting.findUnique({ where: { key } });
  if (existing) return Buffer.from(existing.value, "base64url");
  try {
    await db.serviceSetting.create({ data: { key, value: randomBytes(32).toString("base64url") } });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  return sharedSecret(db, key);
}
