// Where the widget's reader is: the list's order (the site's `order` attribute, the visitor's own
// choice kept per site in localStorage) and links to one comment (#comment-<event id>).
import type { ListOrder } from "../client/index.ts";

/** The `order` attribute's values (and the sort control's labels) → the API's orders. */
export const ORDERS: Record<string, ListOrder> = { oldest: "asc", newest: "desc", top: "top" };

const orderKey = (site: string) => `matrix-comments:order:${site}`;

/** The order this visitor chose on this site, if any. */
export function storedOrder(site: string): ListOrder | null {
  try {
    const stored = localStorage.getItem(orderKey(site));
    return Object.values(ORDERS).find((order) => order === stored) ?? null;
  } catch {
    return null;
  }
}

export function storeOrder(site: string, order: ListOrder): void {
  try {
    localStorage.setItem(orderKey(site), order);
  } catch {
    // Storage refused (private mode, quota): the choice lasts this page only.
  }
}

const PREFIX = "comment-";

/** The id of a comment's element, and of its fragment (without "#"). */
export const commentAnchor = (eventId: string) => `${PREFIX}${eventId}`;

/** A comment's fragment, as links carry it. */
export const commentFragment = (eventId: string) => `#${PREFIX}${encodeURIComponent(eventId)}`;

/** The page's address with the fragment of one comment. */
export function permalink(href: string, eventId: string): string {
  const url = new URL(href);
  url.hash = commentFragment(eventId);
  return url.href;
}

/** The comment a fragment links to ("#comment-<event id>", percent-encoded or not), else null. */
export function linkedComment(hash: string): string | null {
  if (!hash.startsWith(`#${PREFIX}`)) return null;
  try {
    const id = decodeURIComponent(hash.slice(PREFIX.length + 1));
    return id.startsWith("$") ? id : null;
  } catch {
    return null;
  }
}
