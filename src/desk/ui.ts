/// <reference lib="dom" />
// What every view shares: htm bound to Preact (markup as tagged templates, no build step of
// its own; Preact escapes every string it renders, so text anyone posted stays text), the
// status line, queries as hooks, and mutations that report how they went.
import { html } from "htm/preact";
import { createContext } from "preact";
import { useContext, useEffect, useState } from "preact/hooks";
import { DeskError, gql, SIGNED_OUT } from "./api.ts";
import { t, type StringKey } from "./strings.ts";

export { html };

/**
 * What the signed-in governor may do on the site shown, from their roles (`me`), as the
 * service checks them: acting on a comment, closing a page and reviewing held comments need a
 * moderator's role on its page (a site role counts on every page); banning, unbanning and the
 * hold settings need a site manager. Views show only the acts that apply.
 */
export interface Access {
  /** A site admin or manager (the operator too). */
  manages: boolean;
  /** The pages the governor moderates; null: every page (a site role). */
  pages: string[] | null;
}

export interface GovernedSite {
  siteId: string;
  role: string | null;
  pages: Array<{ pageSlug: string; role: string }>;
}

/** Who is signed in and what they govern (the `me` query). */
export interface Me {
  kind: "operator" | "matrix";
  userId: string | null;
  sites: GovernedSite[];
}

/** What the governor may do on a site, from their roles (the operator: everything). */
export function accessOf(me: Me, siteId: string): Access {
  if (me.kind === "operator") return { manages: true, pages: null };
  const site = me.sites.find((s) => s.siteId === siteId);
  if (!site) return { manages: false, pages: [] };
  return {
    manages: site.role === "admin" || site.role === "manager",
    pages: site.role === null ? site.pages.map((p) => p.pageSlug) : null,
  };
}

export const AccessContext = createContext<Access>({ manages: false, pages: [] });

/** The shown site's access, and whether the governor moderates `pageSlug`. */
export function useAccess(): Access & { moderates: (pageSlug: string) => boolean } {
  const access = useContext(AccessContext);
  return { ...access, moderates: (pageSlug) => access.pages === null || access.pages.includes(pageSlug) };
}

/** Set by the shell: the status line, and what signing out (a refused session) does. */
export const shell = {
  notify: (_text: string, _error?: boolean) => {},
  signedOut: () => {},
};

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Reports a failure; a refused session leads back to the sign-in page. */
export function report(err: unknown): void {
  if (err instanceof DeskError && err.code !== null && SIGNED_OUT.has(err.code)) shell.signedOut();
  else shell.notify(t("failed", { reason: describe(err) }), true);
}

export interface Query<T> {
  data: T | null;
  error: string | null;
  reload: () => void;
}

/** Runs `query` whenever `variables` change (compared as JSON), and on reload(). */
export function useQuery<T>(query: string, variables: Record<string, unknown>): Query<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null }>({ data: null, error: null });
  const [round, setRound] = useState(0);
  const key = JSON.stringify(variables);
  useEffect(() => {
    let current = true;
    gql<T>(query, variables).then(
      (data) => current && setState({ data, error: null }),
      (err: unknown) => {
        if (!current) return;
        report(err);
        setState({ data: null, error: describe(err) });
      },
    );
    return () => {
      current = false;
    };
  }, [query, key, round]);
  return { ...state, reload: () => setRound((n) => n + 1) };
}

/**
 * Runs a mutation; says `success` (or what it makes of the answer) or why it failed on the
 * status line. Whether it succeeded.
 */
export async function act<T>(run: () => Promise<T>, success: string | ((answer: T) => string)): Promise<boolean> {
  try {
    const answer = await run();
    shell.notify(typeof success === "string" ? success : success(answer));
    return true;
  } catch (err) {
    report(err);
    return false;
  }
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "—");

export interface Author {
  type: string;
  publicKey: string | null;
  mxid: string | null;
  displayName: string | null;
}

export interface Message {
  eventId: string;
  status: string;
  createdAt: string;
  content: { type: string; body?: string };
  author: Author;
}

export const MESSAGE_FIELDS = "eventId status createdAt content author { type publicKey mxid displayName }";

export const authorName = (author: Author) => author.displayName || author.mxid || t("unnamedVisitor");

/** A comment's text as text (Preact escapes it); other kinds by their type. */
export function contentText(content: { type: string; body?: string }): string {
  if (content.type === "redacted") return t("deletedComment");
  if (typeof content.body === "string") return content.body;
  return t("otherContent", { type: content.type });
}

/** An empty list's line, or the list. */
export const listOr = (empty: string, items: unknown[], list: () => unknown) =>
  items.length === 0 ? html`<p class="muted">${empty}</p>` : list();

/** Whether a key press is the desk's shortcut rather than typing. */
export const typing = (event: KeyboardEvent) =>
  event.target instanceof HTMLElement && !!event.target.closest("input, textarea, select");

/** A table column: its header's string and what a row shows in it. */
export type Column<R> = [StringKey, (row: R) => unknown];

/**
 * A table of `rows`, or the `empty` line. Where it is too wide (a phone) it scrolls sideways in
 * a region that takes focus, so the keyboard scrolls it too; it stays a table for screen readers.
 */
export function Table<R>({
  label,
  empty,
  rows,
  columns,
  rowKey,
}: {
  label: StringKey;
  empty: StringKey;
  rows: R[];
  columns: Column<R>[];
  rowKey: (row: R) => string;
}) {
  return listOr(
    t(empty),
    rows,
    () => html`<div class="scroll" role="region" aria-label=${t(label)} tabindex="0">
      <table data-list=${label}>
        <thead>
          <tr>
            ${columns.map(([header]) => html`<th scope="col">${t(header)}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (row) =>
              html`<tr key=${rowKey(row)}>
                ${columns.map(([, cell]) => html`<td>${cell(row)}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`,
  );
}
