// Proof-of-work challenges: issuing, checking and spending them (single use).
import type { Db, Tx } from "../db/client.ts";
import { driverStatements, isUniqueViolation } from "../db/client.ts";
import { DomainError } from "../core/errors.ts";
import { checkChallengeResponse, issueChallenge, POW_ALGORITHM, type Challenge } from "../security/pow.ts";

const invalidPow = (why: string) =>
  new DomainError(
    "invalid-PoW",
    403,
    `Proof of work rejected: ${why}. Fetch a new challenge from GET /api/v1/challenge.`,
  );

const REASONS = {
  malformed: "challenge_response is not <challenge>|<nonce> with a challenge issued by this service",
  forged: "the challenge was not issued by this service",
  expired: "the challenge has expired",
  "insufficient-work": "the answer does not have enough leading zero bits",
} as const;

export interface CheckedChallenge {
  challenge: string;
  expiresAt: Date;
}

export class Challenges {
  constructor(
    private readonly db: Db,
    private readonly secret: Buffer,
    readonly difficulty: number,
  ) {}

  issue(now = Date.now()): Challenge & { algorithm: string } {
    return { ...issueChallenge(this.secret, this.difficulty, now), algorithm: POW_ALGORITHM };
  }

  /** The challenge prefix of a response, for signature arrays, without checking it. */
  static prefix(challengeResponse: string): string {
    return challengeResponse.slice(0, challengeResponse.indexOf("|"));
  }

  /** Checks the answer and that the challenge is unspent; throws invalid-PoW otherwise. */
  async check(challengeResponse: string, now = Date.now()): Promise<CheckedChallenge> {
    const result = checkChallengeResponse(this.secret, challengeResponse, now);
    if (!result.ok) throw invalidPow(REASONS[result.reason]);
    // On every write: a statement prepared on the driver (src/db/driver-statements.ts).
    const spent = await driverStatements(this.db).all(`SELECT 1 FROM "ConsumedChallenge" WHERE "challenge" = $1`, [
      result.challenge,
    ]);
    if (spent.length > 0) throw invalidPow("the challenge has already been used");
    return { challenge: result.challenge, expiresAt: result.expiresAt };
  }

  /** Spends the challenge inside the transaction that commits the request's effect. */
  async spend(tx: Tx, checked: CheckedChallenge): Promise<void> {
    try {
      await tx.consumedChallenge.create({ data: checked });
    } catch (err) {
      throw isUniqueViolation(err) ? invalidPow("the challenge has already been used") : err;
    }
  }

  async pruneExpired(now = new Date()): Promise<void> {
    await this.db.consumedChallenge.deleteMany({ where: { expiresAt: { lt: now } } });
  }
}
