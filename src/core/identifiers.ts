// Identifier formats of the public API.

const SLUG = /^[a-z0-9-]{1,64}$/;

export const isValidSiteId = (value: string): boolean => SLUG.test(value);
export const isValidPageSlug = (value: string): boolean => SLUG.test(value);

/** Matrix event ids: legacy `$localpart:server` or room v3+ bare hashes (which may contain `/`). */
export const isValidEventId = (value: string): boolean => /^\$[^\s:]+(:[^\s]+)?$/.test(value) && value.length <= 255;

/**
 * Matrix user ids: `@localpart:server_name`, the localpart printable ASCII without `:` (the
 * historical grammar, which includes today's), the server a host name or IP literal with an
 * optional port; at most 255 characters.
 */
export const isValidUserId = (value: string): boolean =>
  value.length <= 255 && /^@[\x21-\x39\x3B-\x7E]+:(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(value);
