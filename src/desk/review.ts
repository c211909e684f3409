/// <reference lib="dom" />
// Held comments (approve or reject, with keyboard shortcuts) and banned authors (unban).
import { useEffect, useState } from "preact/hooks";
import { gql, subscribe } from "./api.ts";
import { type StringKey, t } from "./strings.ts";
import { act, contentText, html, listOr, Table, typing, useAccess, useQuery, when } from "./ui.ts";

interface Held {
  submissionId: string;
  pageSlug: string;
  reason: string | null;
  authorDisplayName: string | null;
  createdAt: string;
  content: { type: string; body?: string };
}

type HeldLists = Record<string, { edges: Array<{ node: Held }> } | string>;

/**
 * The held comments the governor may review: the site's (a site role), else those of each page
 * they moderate (a page moderator may not read the site's list), one aliased list per page.
 */
function heldQuery(pages: string[] | null): string {
  const lists =
    pages === null
      ? ["all: held(first: 100) { ...Held }"]
      : pages.map((_, i) => `p${i}: held(pageSlug: $p${i}, first: 100) { ...Held }`);
  return `query Held($siteId: String!${pages?.map((_, i) => `, $p${i}: String!`).join("") ?? ""}) {
    dashboardSite(siteId: $siteId) { siteId ${lists.join(" ")} } }
    fragment Held on HeldCommentConnection {
      edges { node { submissionId pageSlug reason authorDisplayName createdAt content } } }`;
}

/** Why a comment was held, in words. */
const HELD_REASONS: Record<string, StringKey> = {
  all: "heldForAll",
  "first-post": "heldFirstPost",
  links: "heldLinks",
  words: "heldWords",
};

/** What a review says it did, from the status the mutation answered the comment with. */
export function reviewNotice(approve: boolean, status: string | undefined): string {
  if (!approve) return t("rejected");
  // "Being sent" only when the service says the comment went to the queue.
  return status === "approved" ? t("approved") : t("approvedNotSent", { status: status ?? "" });
}

const REVIEWED = `subscription Reviewed($siteId: String!) { siteActivity(siteId: $siteId) { id type } }`;

/** The held comments of the site, or with `pageSlug` of that page, that the governor may review. */
export function HeldView({ siteId, pageSlug }: { siteId: string; pageSlug?: string }) {
  const access = useAccess();
  const pages = pageSlug !== undefined ? [pageSlug] : access.pages;
  const query = useQuery<{ dashboardSite: HeldLists }>(heldQuery(pages), {
    siteId,
    ...Object.fromEntries((pages ?? []).map((slug, i) => [`p${i}`, slug])),
  });
  const [done, setDone] = useState<Set<string>>(new Set());
  const [at, setAt] = useState(0);
  const items = Object.values(query.data?.dashboardSite ?? {})
    .flatMap((list) => (typeof list === "string" ? [] : list.edges.map((e) => e.node)))
    .filter((h) => !done.has(h.submissionId))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));

  // Held, approved and rejected comments arrive with the site's activity: the list is read again.
  useEffect(
    () =>
      subscribe<{ siteActivity: { type: string } }>(
        REVIEWED,
        { siteId },
        {
          next: ({ siteActivity }) => ["held", "approved", "rejected"].includes(siteActivity.type) && query.reload(),
          error: () => {},
        },
      ),
    [siteId],
  );

  const review = async (held: Held | undefined, approve: boolean) => {
    if (!held) return;
    const field = approve ? "approveHeldComment" : "rejectHeldComment";
    const ok = await act(
      () =>
        gql<Record<string, { status: string }>>(
          `mutation Review($siteId: String!, $submissionId: String!) { ${field}(siteId: $siteId, submissionId: $submissionId) { status } }`,
          {
            siteId,
            submissionId: held.submissionId,
          },
        ),
      (answer) => reviewNotice(approve, answer[field]?.status),
    );
    if (ok) setDone((old) => new Set(old).add(held.submissionId));
  };

  const current = Math.min(at, items.length - 1);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (typing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
      const move = { j: 1, k: -1 }[event.key];
      if (move) setAt((n) => Math.max(0, Math.min(items.length - 1, n + move)));
      else if (event.key === "a" || event.key === "r") void review(items[current], event.key === "a");
      else return;
      event.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  });

  return html`<section aria-labelledby="held-title">
    <h3 id="held-title">${pageSlug !== undefined ? t("heldOnPage") : t("held")}</h3>
    <p class="muted">${t("heldShortcuts")}</p>
    ${listOr(
      t("noHeld"),
      items,
      () => html`<ul class="cards" data-list="held">
        ${items.map(
          (held, index) => html`<li key=${held.submissionId}>
            <article
              class=${index === current ? "card target" : "card"}
              aria-current=${index === current ? "true" : undefined}
              data-submission=${held.submissionId}
            >
              <header>
                <strong class="author">${held.authorDisplayName || t("unnamedVisitor")}</strong>
                <a href=${`#/site/${siteId}/page/${held.pageSlug}`}>${held.pageSlug}</a>
                <time datetime=${held.createdAt}>${when(held.createdAt)}</time>
                ${
                  held.reason &&
                  html`<span class="badge">${t("heldReason", { reason: HELD_REASONS[held.reason] ? t(HELD_REASONS[held.reason]!) : held.reason })}</span>`
                }
              </header>
              <p class="text">${contentText(held.content)}</p>
              <div class="actions">
                <button type="button" class="primary" onClick=${() => void review(held, true)}>${t("approve")}</button>
                <button type="button" class="danger" onClick=${() => void review(held, false)}>${t("reject")}</button>
              </div>
            </article>
          </li>`,
        )}
      </ul>`,
    )}
  </section>`;
}

interface Banned {
  userId: string;
  publicKey: string | null;
  displayName: string | null;
  reason: string | null;
  bannedBy: string;
  bannedAt: string;
  expiresAt: string | null;
}

export function BannedView({ siteId }: { siteId: string }) {
  const { manages } = useAccess();
  const query = useQuery<{ dashboardSite: { bannedAuthors: { edges: Array<{ node: Banned }> } } }>(
    `query Banned($siteId: String!) { dashboardSite(siteId: $siteId) {
      bannedAuthors(first: 100) { edges { node { userId publicKey displayName reason bannedBy bannedAt expiresAt } } } } }`,
    { siteId },
  );
  const items = (query.data?.dashboardSite.bannedAuthors.edges ?? []).map((e) => e.node);
  const unban = async (ban: Banned) => {
    const ok = await act(
      () =>
        gql(
          `mutation Unban($siteId: String!, $publicKey: String, $mxid: String) {
          unbanAuthor(siteId: $siteId, publicKey: $publicKey, mxid: $mxid) }`,
          {
            siteId,
            publicKey: ban.publicKey ?? undefined,
            mxid: ban.publicKey ? undefined : ban.userId,
          },
        ),
      t("unbanned"),
    );
    if (ok) query.reload();
  };
  return html`<section aria-labelledby="banned-title">
    <h3 id="banned-title">${t("banned")}</h3>
    <${Table}
      label="banned"
      empty="noBanned"
      rows=${items}
      rowKey=${(ban: Banned) => ban.userId}
      columns=${[
        // A visitor by their name (their Matrix id is the service's own); a Matrix account by its id.
        ["author", (ban: Banned) => (ban.publicKey ? ban.displayName || t("unnamedVisitor") : ban.userId)],
        ["why", (ban: Banned) => ban.reason],
        ["bannedBy", (ban: Banned) => ban.bannedBy],
        ["until", (ban: Banned) => (ban.expiresAt ? when(ban.expiresAt) : t("forever"))],
        // Unbanning is a manager's.
        ...(manages
          ? [
              [
                "actions",
                (ban: Banned) => html`<button type="button" onClick=${() => void unban(ban)}>${t("unban")}</button>`,
              ],
            ]
          : []),
      ]}
    />
  </section>`;
}
