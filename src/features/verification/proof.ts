// What a verification method proves and how it reports: the site's token, published where
// only the origin's owner can publish it.

export interface Proof {
  siteId: string;
  token: string;
}

/** One method's outcome; `reason` tells the site owner what was found instead. */
export type Check = { ok: true } | { ok: false; reason: string };
