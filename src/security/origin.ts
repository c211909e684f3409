// Web origins (RFC 6454) in their serialized, comparable form.

/** Returns `scheme://host[:port]` (lowercase, default port dropped) or null if `value` is no origin. */
export function normalizeOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password || url.search || url.hash) return null;
  if (url.pathname !== "/" || /\/./.test(value.replace(/^[a-z]+:\/\//i, ""))) return null;
  return url.origin;
}
