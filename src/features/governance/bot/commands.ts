// What a Matrix user's message asks the AS bot (pure): a role claim (`service-claim:<token>`),
// a `!service` command, or nothing (ordinary chat, which the bot leaves alone in group rooms).

export type BotRequest =
  | { kind: "claim"; token: string }
  | { kind: "help" }
  | { kind: "roles" }
  | { kind: "status"; siteId: string }
  | { kind: "pending"; siteId: string }
  /** `!service` with a command the bot does not know, or a known one used wrongly. */
  | { kind: "unknown" };

export const CLAIM_PREFIX = "service-claim:";
export const COMMAND_PREFIX = "!service";

/** Tokens are far shorter; anything longer is not one and is not worth a database look-up. */
const MAX_TOKEN_LENGTH = 256;

/** Reads a message body; null when it is not addressed to the bot. */
export function parseRequest(body: string): BotRequest | null {
  const text = body.trim();
  if (text.startsWith(CLAIM_PREFIX)) {
    const token = text.slice(CLAIM_PREFIX.length).trim();
    return token && token.length <= MAX_TOKEN_LENGTH && !/\s/.test(token)
      ? { kind: "claim", token }
      : { kind: "unknown" };
  }
  const words = text.split(/\s+/);
  if (words[0]?.toLowerCase() !== COMMAND_PREFIX) return null;
  const [command = "help", ...args] = words.slice(1);
  switch (command.toLowerCase()) {
    case "help":
      return args.length === 0 ? { kind: "help" } : { kind: "unknown" };
    case "roles":
      return args.length === 0 ? { kind: "roles" } : { kind: "unknown" };
    case "status":
    case "pending":
      return args.length === 1
        ? { kind: command.toLowerCase() as "status" | "pending", siteId: args[0]! }
        : { kind: "unknown" };
    default:
      return { kind: "unknown" };
  }
}
