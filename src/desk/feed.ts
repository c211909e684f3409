/// <reference lib="dom" />
// The live feed of a site's (or one page's) comments, newest first: loaded with
// dashboardSite.comments, kept live by the siteActivity subscription, with the moderator's acts:
// delete (one or a selection, with a reason), ban the author for a while, pin, open in context.
import { useEffect, useRef, useState } from "preact/hooks";
import { gql, subscribe } from "./api.ts";
import { t } from "./strings.ts";
import {
  act,
  authorName,
  contentText,
  html,
  listOr,
  MESSAGE_FIELDS,
  report,
  useAccess,
  useQuery,
  when,
  type Message,
} from "./ui.ts";

interface Row extends Message {
  pageSlug: string;
}

interface Page {
  dashboardSite: {
    comments: {
      edges: Array<{ node: Message & { roomId: string } }>;
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
    pages: { edges: Array<{ node: { slug: string; roomId: string | null; pinned: string[] } }> };
  };
}

const COMMENTS = `query Feed($siteId: String!, $pageSlug: String, $search: String, $after: String) {
  dashboardSite(siteId: $siteId) {
    comments(first: 50, pageSlug: $pageSlug, search: $search, after: $after) {
      edges { node { ${MESSAGE_FIELDS} roomId } } pageInfo { hasNextPage endCursor }
    }
    pages(first: 100) { edges { node { slug roomId pinned } } }
  }
}`;

const ACTIVITY = `subscription Activity($siteId: String!) {
  siteActivity(siteId: $siteId) { id type pageSlug eventId message { ${MESSAGE_FIELDS} } }
}`;

const DURATIONS: Array<[string, number | null]> = [
  [t("hour"), 3600],
  [t("day"), 86_400],
  [t("week"), 604_800],
  [t("month"), 2_592_000],
  [t("forever"), null],
];
/** A first ban is for a day: long enough to stop a flood, short enough to undo a mistake by itself. */
const DEFAULT_DURATION = 86_400;

type Dialog = { kind: "delete"; rows: Row[] } | { kind: "ban"; row: Row } | null;

export function Feed({ siteId, pageSlug }: { siteId: string; pageSlug?: string }) {
  const { manages, moderates } = useAccess();
  const [search, setSearch] = useState("");
  const [rows, setRows] = useState<Row[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [pinned, setPinned] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<Dialog>(null);
  const [live, setLive] = useState(false);
  const [arrived, setArrived] = useState(0);

  const load = async (after: string | null) => {
    try {
      const data = await gql<Page>(COMMENTS, { siteId, pageSlug, search: search || undefined, after });
      // The page a comment is on, by its room (a Message names its room, not its page): the
      // site's 100 most recently active pages, where the newest comments are.
      const slugs = new Map(data.dashboardSite.pages.edges.map((e) => [e.node.roomId, e.node.slug]));
      const loaded = data.dashboardSite.comments.edges.map((e) => ({
        ...e.node,
        pageSlug: pageSlug ?? slugs.get(e.node.roomId) ?? "",
      }));
      setRows((old) => (after ? [...old, ...loaded] : loaded));
      if (!after) setPinned(new Set(data.dashboardSite.pages.edges.flatMap((e) => e.node.pinned)));
      const info = data.dashboardSite.comments.pageInfo;
      setNext(info.hasNextPage ? info.endCursor : null);
    } catch (err) {
      report(err);
    }
  };

  useEffect(() => {
    void load(null);
  }, [siteId, pageSlug, search]);

  useEffect(() => {
    setLive(false);
    return subscribe<{
      siteActivity: { type: string; pageSlug: string; eventId: string | null; message: Message | null };
    }>(
      ACTIVITY,
      { siteId },
      {
        next: ({ siteActivity: event }) => {
          if (pageSlug && event.pageSlug !== pageSlug) return;
          const message = event.message;
          if (event.type === "created" && message) {
            setRows((old) =>
              old.some((r) => r.eventId === message.eventId) ? old : [{ ...message, pageSlug: event.pageSlug }, ...old],
            );
            setArrived((n) => n + 1);
          } else if (event.type === "edited" && message)
            setRows((old) => old.map((r) => (r.eventId === message.eventId ? { ...r, ...message } : r)));
          else if (event.type === "deleted")
            setRows((old) =>
              old.map((r) =>
                r.eventId === event.eventId ? { ...r, status: "redacted", content: { type: "redacted" } } : r,
              ),
            );
        },
        error: (err) => {
          setLive(false);
          report(err);
        },
        connected: () => setLive(true),
      },
    );
  }, [siteId, pageSlug]);

  const toggle = (id: string) =>
    setSelected((old) => {
      const copy = new Set(old);
      if (!copy.delete(id)) copy.add(id);
      return copy;
    });

  const pin = async (row: Row) => {
    const unpin = pinned.has(row.eventId);
    const ok = await act(
      () =>
        gql(
          `mutation Pin($siteId: String!, $eventId: String!) { ${unpin ? "unpinComment" : "pinComment"}(siteId: $siteId, eventId: $eventId) }`,
          {
            siteId,
            eventId: row.eventId,
          },
        ),
      t(unpin ? "unpinned" : "pinned"),
    );
    if (ok)
      setPinned((old) => {
        const copy = new Set(old);
        if (unpin) copy.delete(row.eventId);
        else copy.add(row.eventId);
        return copy;
      });
  };

  // What the governor may act on: comments standing on the pages they moderate.
  const actionable = (row: Row) => row.status !== "redacted" && moderates(row.pageSlug);
  const standing = rows.filter(actionable);
  return html`
    <section aria-labelledby="feed-title">
      <div class="toolbar">
        <h3 id="feed-title">${pageSlug ? t("pageComments") : t("feed")}</h3>
        <span class="badge" role="status">${live ? `● ${t("live")}` : t("offline")}</span>
        <form
          class="inline"
          role="search"
          onSubmit=${(e: Event) => {
            e.preventDefault();
            setSearch(String(new FormData(e.currentTarget as HTMLFormElement).get("search") ?? ""));
          }}
        >
          <label>${t("search")} <input name="search" type="search" placeholder=${t("searchComments")} /></label>
          <button type="submit">${t("search")}</button>
        </form>
        <label class="check"
          ><input
            type="checkbox"
            checked=${standing.length > 0 && selected.size === standing.length}
            onChange=${(e: Event) =>
              setSelected(
                (e.currentTarget as HTMLInputElement).checked ? new Set(standing.map((r) => r.eventId)) : new Set(),
              )}
          />
          ${t("selectAll")}</label
        >
        <button
          type="button"
          class="danger"
          disabled=${selected.size === 0}
          onClick=${() => setDialog({ kind: "delete", rows: rows.filter((r) => selected.has(r.eventId)) })}
        >
          ${t("deleteSelected", { n: selected.size })}
        </button>
      </div>
      <p class="sr" aria-live="polite">${arrived > 0 ? t("newComments", { n: arrived }) : ""}</p>
      ${
        dialog &&
        html`<${ActDialog}
        siteId=${siteId}
        dialog=${dialog}
        close=${() => setDialog(null)}
        deleted=${(ids: string[]) => {
          setSelected(new Set());
          setRows((old) =>
            old.map((r) => (ids.includes(r.eventId) ? { ...r, status: "redacted", content: { type: "redacted" } } : r)),
          );
        }}
      />`
      }
      ${listOr(
        t("noComments"),
        rows,
        () => html`<ul class="cards" data-list="feed">
          ${rows.map(
            (row) => html`<li key=${row.eventId}>
              <article class=${row.status === "redacted" ? "card gone" : "card"} data-event=${row.eventId}>
                <header>
                  ${
                    actionable(row) &&
                    html`<input
                    type="checkbox"
                    aria-label=${t("select", { name: authorName(row.author) })}
                    checked=${selected.has(row.eventId)}
                    onChange=${() => toggle(row.eventId)}
                  />`
                  }
                  <strong class="author">${authorName(row.author)}</strong>
                  ${
                    !pageSlug &&
                    row.pageSlug &&
                    html`<a href=${`#/site/${siteId}/page/${row.pageSlug}`}>${row.pageSlug}</a>`
                  }
                  <time datetime=${row.createdAt}>${when(row.createdAt)}</time>
                </header>
                <p class="text">${contentText(row.content)}</p>
                ${
                  row.status !== "redacted" &&
                  html`<div class="actions">
                  ${
                    actionable(row) &&
                    html`<button type="button" class="danger" onClick=${() => setDialog({ kind: "delete", rows: [row] })}>
                      ${t("delete")}
                    </button>`
                  }
                  ${manages && html`<button type="button" onClick=${() => setDialog({ kind: "ban", row })}>${t("ban")}</button>`}
                  ${
                    actionable(row) &&
                    html`<button type="button" class=${pinned.has(row.eventId) ? "on" : undefined} onClick=${() => void pin(row)}>
                      ${pinned.has(row.eventId) ? t("unpin") : t("pin")}
                    </button>`
                  }
                  <a class="button" href=${`#/site/${siteId}/thread/${encodeURIComponent(row.eventId)}`}>${t("context")}</a>
                </div>`
                }
              </article>
            </li>`,
          )}
        </ul>`,
      )}
      ${next && html`<button type="button" onClick=${() => void load(next)}>${t("more")}</button>`}
    </section>
  `;
}

/** The delete or ban form, inline above the list; focus moves into it and back out when done. */
function ActDialog({
  siteId,
  dialog,
  close,
  deleted,
}: {
  siteId: string;
  dialog: NonNullable<Dialog>;
  close: () => void;
  deleted: (ids: string[]) => void;
}) {
  const first = useRef<HTMLInputElement>(null);
  // Focus moves into the form, and back to what opened it when the form goes.
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    first.current?.focus();
    return () => opener?.focus();
  }, [dialog]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const reason = String(form.get("reason") ?? "") || undefined;
    if (dialog.kind === "delete") {
      const eventIds = dialog.rows.map((r) => r.eventId);
      const ok = await act(
        () =>
          gql(
            `mutation Delete($siteId: String!, $eventIds: [String!]!, $reason: String) {
            deleteComments(siteId: $siteId, eventIds: $eventIds, reason: $reason) }`,
            {
              siteId,
              eventIds,
              reason,
            },
          ),
        t("done"),
      );
      if (ok) deleted(eventIds);
      if (ok) close();
      return;
    }
    const duration = String(form.get("duration") ?? "");
    const author = dialog.row.author;
    const ok = await act(
      () =>
        gql(
          `mutation Ban($siteId: String!, $publicKey: String, $mxid: String, $reason: String, $durationSeconds: Int) {
          banAuthor(siteId: $siteId, publicKey: $publicKey, mxid: $mxid, reason: $reason, durationSeconds: $durationSeconds) { userId } }`,
          {
            siteId,
            publicKey: author.type === "visitor" ? author.publicKey : undefined,
            mxid: author.type === "matrix" ? author.mxid : undefined,
            reason,
            durationSeconds: duration ? Number(duration) : undefined,
          },
        ),
      t("done"),
    );
    if (ok) close();
  };
  const title =
    dialog.kind === "delete"
      ? t("deleteTitle", { n: dialog.rows.length })
      : t("banTitle", { name: authorName(dialog.row.author) });
  // The comments the act is about, quoted, so the form says what it acts on.
  const quoted = dialog.kind === "delete" ? dialog.rows : [dialog.row];
  return html`<form class="dialog" aria-label=${title} onSubmit=${submit} onKeyDown=${(e: KeyboardEvent) => e.key === "Escape" && close()}>
    <h4>${title}</h4>
    <ul class="quotes">
      ${quoted.map(
        (row) => html`<li key=${row.eventId}>
          <figure>
            <blockquote class="text">${contentText(row.content)}</blockquote>
            <figcaption>${t("quoteBy", { name: authorName(row.author), when: when(row.createdAt) })}</figcaption>
          </figure>
        </li>`,
      )}
    </ul>
    <label>${t("reason")} <input ref=${first} name="reason" maxlength="300" /></label>
    ${
      dialog.kind === "ban" &&
      html`<label
      >${t("duration")}
      <select name="duration">
        ${DURATIONS.map(
          ([label, seconds]) =>
            html`<option value=${seconds ?? ""} selected=${seconds === DEFAULT_DURATION}>${label}</option>`,
        )}
      </select></label
    >`
    }
    <div class="actions">
      <button type="submit" class="danger">${t("confirm")}</button>
      <button type="button" onClick=${close}>${t("cancel")}</button>
    </div>
  </form>`;
}

interface Thread {
  dashboardSite: {
    thread: { comment: Message; parent: Message | null; messages: Message[] };
  };
}

/** A comment in its thread: the root and every reply, the comment itself marked. */
export function ThreadView({ siteId, eventId }: { siteId: string; eventId: string }) {
  const query = useQuery<Thread>(
    `query Thread($siteId: String!, $eventId: String!) { dashboardSite(siteId: $siteId) {
      thread(eventId: $eventId) { comment { ${MESSAGE_FIELDS} } parent { ${MESSAGE_FIELDS} } messages { ${MESSAGE_FIELDS} } } } }`,
    { siteId, eventId },
  );
  const thread = query.data?.dashboardSite.thread;
  if (!thread) return html`<p class="muted">${query.error ?? t("loading")}</p>`;
  const messages = thread.messages.some((m) => m.eventId === eventId) ? thread.messages : [thread.comment];
  return html`<section aria-labelledby="thread-title">
    <h3 id="thread-title">${t("threadTitle")}</h3>
    ${
      thread.parent &&
      html`<p class="muted">${t("replyTo")}: ${authorName(thread.parent.author)} — ${contentText(thread.parent.content)}</p>`
    }
    <ol class="cards">
      ${messages.map(
        (m) => html`<li key=${m.eventId}>
          <article class=${m.eventId === eventId ? "card target" : "card"} aria-current=${m.eventId === eventId ? "true" : undefined}>
            <header>
              <strong class="author">${authorName(m.author)}</strong>
              <time datetime=${m.createdAt}>${when(m.createdAt)}</time>
              ${m.eventId === eventId && html`<span class="badge">${t("thisComment")}</span>`}
            </header>
            <p class="text">${contentText(m.content)}</p>
          </article>
        </li>`,
      )}
    </ol>
  </section>`;
}
