// Service-wide secrets kept in the database, so every instance sharing it agrees on them.
import { isUniqueViolation, type Db } from "./client.ts";
import { randomToken } from "../security/random-token.ts";

/** Returns the stored secret `key`, creating it (32 random bytes) on first use. */
export async function sharedSecret(db: Db, key: string): Promise<Buffer> {
  const existing = await db.serviceSetting.findUnique({ where: { key } });
  if (existing) return Buffer.from(existing.value, "base64url");
  try {
    await db.serviceSetting.create({ data: { key, value: randomToken() } });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  return sharedSecret(db, key);
}
