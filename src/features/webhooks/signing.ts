// Standard Webhooks signatures (https://www.standardwebhooks.com/), pure: the secret is
// "whsec_" + base64 of the key; each message is signed as HMAC-SHA256 over
// "<webhook-id>.<webhook-timestamp>.<body>", sent as "v1,<base64>" in webhook-signature.
import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";

/** A new signing secret: 32 random bytes. */
export const newWebhookSecret = (): string => `${PREFIX}${randomBytes(32).toString("base64")}`;

/** The webhook-signature value of a message. */
export function signWebhook(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), "base64");
  const mac = createHmac("sha256", key).update(`${messageId}.${timestamp}.${body}`, "utf8").digest("base64");
  return `v1,${mac}`;
}

/** The headers of one attempt: the same id on every attempt, the attempt's time and signature. */
export function webhookHeaders(secret: string, messageId: string, body: string, now: Date): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signWebhook(secret, messageId, timestamp, body),
  };
}
