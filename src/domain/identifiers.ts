// Identifier formats of the public API.

const SLUG = /^[a-z0-9-]{1,64}$/;

export const isValidSiteId = (value: string): boolean => SLUG.test(value);
export const isValidPageSlug = (value: string): boolean => SLUG.test(value);

/** Matrix event ids: legacy `$localpart:server` or room v3+ bare hashes (which may contain `/`). */
export const isValidEventId = (value: string): boolean =>
  /^\$[^\s:]+(:[^\s]+)?$/.test(value) && value.length <= 255;
