/// <reference lib="dom" />
// <matrix-comments site="…" page="…"> — the embeddable comment widget, built on the SDK.
// Optional attributes: api (the service's base URL; default: where this script was loaded
// from), theme ("light" | "dark"; default: the visitor's preference), per-page (default 50),
// lang (default: the page's, then the browser's), order ("oldest" | "newest" | "top"; the
// visitor's own choice, kept in localStorage, wins), depth (reply levels shown before "n more
// replies"; default 3). docs/client.md lists them.
import {
  ApiError,
  CommentList,
  CommentsClient,
  indexedDbKeyStore,
  type CommentNode,
  type ListOrder,
  type Message,
  type StickerPack,
} from "../client/index.ts";
import { h, linkify, safeUrl, type Child } from "./dom.ts";
import { css } from "./styles.ts";
import { chooseLanguage, englishTranslator, loadTranslator, type Translator } from "./i18n.ts";
import { sanitizedHtml } from "./sanitize.ts";
import {
  ORDERS,
  commentAnchor,
  commentFragment,
  permalink,
  linkedComment,
  storedOrder,
  storeOrder,
} from "./navigation.ts";

/** The content hash of the language files (set by the bundler: their immutable URLs). */
declare const LOCALES_VERSION: string;

const QUICK_REACTIONS = ["👍", "❤️", "😂", "🎉", "😮", "😢"];
/** Where this script was loaded from: the service that serves it is the API's default base. */
const scriptOrigin = (() => {
  const src = (document.currentScript as HTMLScriptElement | null)?.src;
  return src ? new URL(src).origin : null;
})();

const nameKey = (site: string) => `matrix-comments:name:${site}`;
const describe = (err: unknown) =>
  err instanceof ApiError ? (err.problem?.detail ?? err.message) : err instanceof Error ? err.message : String(err);
const authorName = (m: Message, tr: Translator) =>
  m.author.display_name || (m.author.type === "matrix" ? (m.author.mxid ?? "") : "") || tr.t("anonymous");
/** Replies in a subtree (what "n more replies" counts). */
const descendants = (node: CommentNode): number =>
  node.children.reduce((sum, child) => sum + 1 + descendants(child), 0);

export class MatrixComments extends HTMLElement {
  static observedAttributes = ["site", "page", "api", "lang", "order", "depth"];

  private readonly root = this.attachShadow({ mode: "open" });
  private client: CommentsClient | null = null;
  private list: CommentList | null = null;
  private stickers: StickerPack[] = [];
  private loadError: string | null = null;
  private replyTo: string | null = null;
  private editing: string | null = null;
  private palette: string | null = null;
  private showStickers = false;
  private tr: Translator = englishTranslator();
  /** Comments whose collapsed replies (past the depth) the visitor opened. */
  private readonly expanded = new Set<string>();
  /** Comments already shown: one not among them is announced as new. */
  private seen: Set<string> | null = null;
  /** A linked comment to scroll to and highlight with the next render. */
  private target: string | null = null;
  /** A comment to move focus to with the next render (the first one "load more" brought). */
  private focusNext: string | null = null;
  private readonly drafts = new Map<string, string>();
  private readonly votes = new Map<string, string>();
  /** Submissions posted from here and not yet seen in the list. */
  private readonly pending = new Set<string>();
  private frame = 0;
  private readonly rendered = new Map<
    string,
    {
      key: string;
      item: HTMLElement;
      replies: HTMLElement;
      expand?: { label: string; item: HTMLElement; node: CommentNode };
    }
  >();
  private readonly listHost = h("div");
  private readonly composerHost = h("div");
  /** The viewer's own comments awaiting review (or not approved), personalized reads only. */
  private readonly pendingHost = h("ul", { class: "pending" });
  private readonly closedNote = h("p", { class: "closed", hidden: true });
  private readonly live = h("span", { class: "status", role: "status" });
  // Typing changes too often to be announced; new comments are, politely, in `announcer`.
  private readonly typing = h("p", { class: "typing" });
  private readonly notice = h("p", { class: "status", "aria-live": "polite" });
  private readonly announcer = h("p", { class: "sr", "aria-live": "polite" });
  private readonly onHashChange = () => void this.openLinked();
  /** Relative times ("3 minutes ago") age in place, once a minute. */
  private clock = 0;

  private get site(): string {
    return this.getAttribute("site") ?? "";
  }

  private get page(): string {
    return this.getAttribute("page") ?? "";
  }

  private get api(): string {
    return this.getAttribute("api") ?? scriptOrigin ?? location.origin;
  }

  private get order(): ListOrder {
    return storedOrder(this.site) ?? ORDERS[this.getAttribute("order") ?? ""] ?? "asc";
  }

  private get depth(): number {
    const depth = Number(this.getAttribute("depth"));
    return Number.isInteger(depth) && depth >= 1 ? depth : 3;
  }

  connectedCallback(): void {
    this.layout();
    window.addEventListener("hashchange", this.onHashChange);
    this.clock = window.setInterval(() => {
      for (const time of this.root.querySelectorAll("time")) time.textContent = this.tr.ago(new Date(time.dateTime));
    }, 60_000);
    void this.start();
  }

  /** The frame around the list, in the current language and its direction. */
  private layout(): void {
    const tr = this.tr;
    const order = h(
      "select",
      {
        "data-key": "order",
        onchange: (e: Event) => this.sortBy((e.currentTarget as HTMLSelectElement).value as ListOrder),
      },
      (Object.entries(ORDERS) as Array<[string, ListOrder]>).map(([label, value]) =>
        h("option", { value, selected: value === this.order }, tr.t(label as "oldest" | "newest" | "top")),
      ),
    );
    this.root.replaceChildren(
      h("style", {}, css),
      h(
        "section",
        { "aria-label": tr.t("title"), lang: tr.lang, dir: tr.dir },
        h("h2", {}, tr.t("title"), " ", this.live),
        h("div", { class: "toolbar" }, h("label", {}, tr.t("sortBy"), order)),
        this.listHost,
        this.typing,
        this.pendingHost,
        this.closedNote,
        this.composerHost,
        this.notice,
        this.announcer,
      ),
    );
  }

  disconnectedCallback(): void {
    window.removeEventListener("hashchange", this.onHashChange);
    clearInterval(this.clock);
    this.list?.stop();
    this.list = null;
  }

  attributeChangedCallback(): void {
    if (this.isConnected && this.list) void this.start();
  }

  private async start(): Promise<void> {
    this.list?.stop();
    this.list = null;
    this.loadError = null;
    this.seen = null;
    this.rendered.clear();
    this.listHost.replaceChildren(h("p", { class: "status" }, this.tr.t("loading")));
    const select = this.root.querySelector<HTMLSelectElement>("select[data-key=order]");
    if (select) select.value = this.order;
    // The language file (when not English) and the first page come in one round trip, side by side.
    const lang = chooseLanguage([this.getAttribute("lang"), document.documentElement.lang, ...navigator.languages]);
    const translator = lang === this.tr.lang ? this.tr : loadTranslator(lang, this.api, LOCALES_VERSION);
    try {
      this.client = await CommentsClient.connect({ baseUrl: this.api, site: this.site, keyStore: indexedDbKeyStore() });
      this.list = new CommentList(
        this.client,
        this.page,
        () => this.schedule(),
        Number(this.getAttribute("per-page")) || 50,
        this.order,
      );
      const [tr] = await Promise.all([translator, this.list.start()]);
      if (tr !== this.tr) {
        this.tr = tr;
        this.rendered.clear();
        this.layout();
      }
      this.composerHost.replaceChildren(this.composer());
      this.stickers = await this.client.stickers().catch(() => []);
    } catch (err) {
      this.tr = await translator;
      this.loadError = describe(err);
    }
    this.schedule();
    await this.openLinked();
  }

  /** The visitor's choice of order: kept for the site, and the list read again in it. */
  private sortBy(order: ListOrder): void {
    storeOrder(this.site, order);
    void this.start();
  }

  /** Opens the comment the page's address links to (#comment-…): loads pages up to it, then scrolls to it. */
  private async openLinked(): Promise<void> {
    const id = linkedComment(location.hash);
    const list = this.list;
    if (id === null || !list) return;
    try {
      if (!(await list.reveal(id))) {
        this.notice.textContent = this.tr.t("notFound");
        return;
      }
    } catch (err) {
      return this.fail(err);
    }
    // Its collapsed ancestors open.
    for (let m = list.get(id); m; m = list.get(m.reply_to ?? m.thread_root ?? "")) this.expanded.add(m.event_id);
    this.target = id;
    this.rendered.delete(id);
    this.schedule();
  }

  /** Renders at most once a frame, however many events arrive. */
  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => ((this.frame = 0), this.render()));
  }

  private render(): void {
    const list = this.list;
    const tr = this.tr;
    if (this.loadError || !list) {
      this.listHost.replaceChildren(
        h("p", { class: "error", role: "alert" }, tr.t("loadFailed"), " ", this.loadError),
        h("button", { onclick: () => void this.start() }, tr.t("retry")),
      );
      return;
    }
    const fresh: Message[] = [];
    for (const message of list.all()) {
      if (message.submission_id && this.pending.delete(message.submission_id)) this.notice.textContent = tr.t("posted");
      else if (this.seen && !this.seen.has(message.event_id)) fresh.push(message);
    }
    this.seen = new Set(list.all().map((m) => m.event_id));
    // Comments others posted while the visitor reads, announced politely (pages loaded on request are not new).
    const arrived = this.focusNext === null ? fresh.filter((m) => m.status !== "redacted") : [];
    if (arrived.length > 0)
      this.announcer.textContent = arrived.map((m) => tr.t("newComment", { name: authorName(m, tr) })).join(". ");
    // The list is rebuilt from state; the focused control (found again by its data-key) and
    // its caret survive.
    const active = this.root.activeElement as HTMLElement | null;
    const key = active?.dataset.key;
    const caret =
      active instanceof HTMLTextAreaElement ? ([active.selectionStart, active.selectionEnd] as const) : null;
    const total = list.meta?.total ?? 0;
    const tree = list.tree();
    this.listHost.replaceChildren(
      h(
        "p",
        { class: "status" },
        tree.length === 0 ? tr.t("empty") : tr.plural("count", Math.max(total, list.all().length)),
      ),
      h(
        "ol",
        {},
        tree.map((node) => this.comment(node, 1)),
      ),
      h(
        "div",
        {},
        list.hasMore &&
          h("button", { class: "more", "data-key": "more", onclick: () => void this.loadMore(list) }, tr.t("more")),
      ),
    );
    if (key) {
      const again = this.root.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
      again?.focus();
      if (again instanceof HTMLTextAreaElement && caret) again.setSelectionRange(caret[0], caret[1]);
    }
    this.pendingHost.replaceChildren(
      ...list
        .pending()
        .map((p) =>
          h(
            "li",
            {},
            h(
              "strong",
              {},
              tr.t(p.status === "held" ? "awaitingReview" : p.status === "failed" ? "notPosted" : "notApproved"),
            ),
            " ",
            h("span", { class: "meta" }, p.content.type === "text" ? (p.content as { body?: string }).body : ""),
          ),
        ),
    );
    // A closed page keeps its comments but takes no new ones.
    this.composerHost.hidden = list.closed;
    this.closedNote.hidden = !list.closed;
    this.closedNote.textContent = tr.t("closed");
    this.live.textContent =
      list.status === "open" ? `● ${tr.t("live")}` : list.status === "reconnecting" ? tr.t("offline") : "";
    const typing = list.typing.map((u) => u.display_name || (u.type === "matrix" ? u.mxid : tr.t("anonymous")));
    this.typing.textContent = typing.length ? tr.plural("typing", typing.length, { names: tr.list(typing) }) : "";
    this.moveFocus();
  }

  /** After a render: to the linked comment (scrolled to, highlighted), or to the first one "load more" brought. */
  private moveFocus(): void {
    if (this.target) {
      const article = this.root.getElementById(commentAnchor(this.target));
      if (!article) return;
      this.target = null;
      for (const old of this.root.querySelectorAll("article.target")) old.classList.remove("target");
      article.classList.add("target");
      const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
      article.scrollIntoView({ behavior: still ? "auto" : "smooth", block: "center" });
      article.focus({ preventScroll: true });
    } else if (this.focusNext) {
      this.root.getElementById(commentAnchor(this.focusNext))?.focus({ preventScroll: true });
      this.focusNext = null;
    }
  }

  /** The next page, with focus on its first comment: the reading position stays where it was. */
  private async loadMore(list: CommentList): Promise<void> {
    const shown = new Set(list.all().map((m) => m.event_id));
    try {
      await list.loadMore();
      this.focusNext = list.all().find((m) => !shown.has(m.event_id))?.event_id ?? null;
      this.schedule();
    } catch (err) {
      this.fail(err);
    }
  }

  /**
   * A comment's list item: reused while what it shows is unchanged, so a live event does not
   * rebuild the whole list under the visitor's pointer; its replies are arranged afresh.
   */
  private comment(node: CommentNode, level: number): HTMLElement {
    const m = node.message;
    const id = m.event_id;
    const key = JSON.stringify([
      m,
      this.replyTo === id,
      this.editing === id,
      this.palette === id,
      this.votes.get(id) ?? null,
      this.list?.pinned.includes(id),
      this.list?.closed,
    ]);
    let entry = this.rendered.get(id);
    if (entry?.key !== key) {
      const replies = h("ol", { class: "replies" });
      entry = { key, item: this.renderComment(m, replies), replies };
      this.rendered.set(id, entry);
    }
    // Replies past the depth wait behind "n more replies" until opened (in place). The button is
    // kept across renders while its label holds, so a live update does not pull it from under the
    // visitor's pointer or focus.
    const collapsed = level >= this.depth && node.children.length > 0 && !this.expanded.has(id);
    if (collapsed) {
      const label = this.tr.plural("moreReplies", descendants(node));
      if (entry.expand?.label !== label)
        entry.expand = {
          label,
          node,
          item: h(
            "li",
            {},
            h(
              "button",
              {
                class: "link",
                "data-key": `expand:${id}`,
                "aria-expanded": "false",
                onclick: () => {
                  this.expanded.add(id);
                  // The node as last rendered: the button outlives the render that made it.
                  this.focusNext = this.rendered.get(id)?.expand?.node.children[0]?.message.event_id ?? null;
                  this.schedule();
                },
              },
              label,
            ),
          ),
        };
      entry.expand.node = node;
      if (entry.replies.firstChild !== entry.expand.item || entry.replies.childNodes.length !== 1)
        entry.replies.replaceChildren(entry.expand.item);
    } else {
      entry.expand = undefined;
      entry.replies.replaceChildren(
        ...node.children.map((child) => this.comment(child, this.expanded.has(id) ? 1 : level + 1)),
      );
    }
    entry.replies.hidden = node.children.length === 0;
    return entry.item;
  }

  private renderComment(m: Message, replies: HTMLElement): HTMLElement {
    const tr = this.tr;
    const id = m.event_id;
    const name = authorName(m, tr);
    const gone = m.status === "redacted";
    const own = !gone && m.author.type === "visitor" && m.author.public_key === this.client!.identity.publicKey;
    const open = !gone && !this.list?.closed;
    const avatar = safeUrl(m.author.avatar_url, this.api);
    const created = new Date(m.created_at);
    const formatted =
      m.content.type === "text" && m.content.formatted_body ? sanitizedHtml(m.content.formatted_body) : null;
    return h(
      "li",
      {},
      h(
        "article",
        { "aria-label": `${name}, ${tr.date(created)}`, "data-id": id, id: commentAnchor(id), tabindex: -1 },
        h(
          "header",
          {},
          avatar
            ? h("img", { class: "avatar", src: avatar, alt: tr.t("avatarOf", { name }), loading: "lazy" })
            : h("span", { class: "avatar", "aria-hidden": "true" }, name.slice(0, 1).toUpperCase()),
          h("span", { class: "name" }, name),
          own && h("span", { class: "meta" }, `(${tr.t("you")})`),
          m.author.type === "matrix" &&
            h(
              "span",
              { class: "badge", title: tr.t("matrixTitle", { mxid: m.author.mxid ?? "" }) },
              tr.t("matrixBadge"),
            ),
          h(
            "a",
            { class: "when", href: commentFragment(id), "data-key": `link:${id}` },
            h("time", { datetime: m.created_at, title: tr.date(created) }, tr.ago(created)),
          ),
          m.status === "edited" && h("span", { class: "meta" }, tr.t("edited")),
          this.list?.pinned.includes(id) && h("span", { class: "badge" }, `📌 ${tr.t("pinned")}`),
        ),
        this.editing === id
          ? this.form(
              `edit:${id}`,
              tr.t("edit"),
              tr.t("save"),
              (text) => this.client!.editComment(this.page, id, text, { markdown: true }),
              this.textOf(m),
            )
          : h("div", { class: formatted ? "body html" : "body" }, formatted ?? this.content(m)),
        !gone &&
          h(
            "div",
            { class: "row" },
            this.reactions(m),
            open &&
              h(
                "button",
                {
                  class: "link",
                  "data-key": `reply:${id}`,
                  "aria-expanded": String(this.replyTo === id),
                  onclick: () => this.toggle("replyTo", id),
                },
                tr.t("reply"),
              ),
            own &&
              open &&
              m.content.type === "text" &&
              h(
                "button",
                { class: "link", "data-key": `edit:${id}`, onclick: () => this.toggle("editing", id) },
                tr.t("edit"),
              ),
            own &&
              open &&
              h(
                "button",
                { class: "link", "data-key": `delete:${id}`, onclick: () => void this.deleteComment(id) },
                tr.t("delete"),
              ),
            h(
              "button",
              { class: "link", "data-key": `copy:${id}`, onclick: () => void this.copyLink(id) },
              tr.t("copyLink"),
            ),
          ),
        this.replyTo === id &&
          this.form(`reply:${id}`, tr.t("repliesTo", { name }), tr.t("reply"), (text) =>
            this.client!.postComment(this.page, {
              content: text,
              markdown: true,
              displayName: this.displayName(),
              replyTo: id,
              threadRoot: m.thread_root ?? id,
            }),
          ),
        replies,
      ),
    );
  }

  /** Puts the comment's permalink on the clipboard (and in the address, which highlights it). */
  private async copyLink(id: string): Promise<void> {
    const link = permalink(location.href, id);
    try {
      await navigator.clipboard.writeText(link);
      this.notice.className = "status";
      this.notice.textContent = this.tr.t("linkCopied");
    } catch {
      this.notice.textContent = link;
    }
    history.replaceState(history.state, "", link);
    void this.openLinked();
  }

  private textOf(m: Message): string {
    return m.content.type === "text" ? m.content.body : "";
  }

  /** A comment's content without HTML (a text's formatted_body, sanitized, is renderComment's). */
  private content(m: Message): Child {
    const tr = this.tr;
    const c = m.content;
    const base = this.api;
    switch (c.type) {
      case "text":
        return linkify(c.body, base);
      case "redacted":
        return h("span", { class: "deleted" }, tr.t("deleted"));
      case "media": {
        const url = safeUrl(c.url, base);
        const label = c.alt_text || c.filename || c.kind;
        if (c.kind === "sticker")
          return h("img", { class: "sticker", src: url ?? safeUrl(c.thumbnail_url, base), alt: label, title: label });
        if (c.kind === "image")
          return h(
            "a",
            { href: url, target: "_blank", rel: "noopener noreferrer" },
            h("img", { class: "media", src: safeUrl(c.thumbnail_url, base) ?? url, alt: label, loading: "lazy" }),
          );
        if (c.kind === "video")
          return h("video", { src: url, controls: true, preload: "metadata", "aria-label": label });
        if (c.kind === "audio") return h("audio", { src: url, controls: true, preload: "none", "aria-label": label });
        return h(
          "a",
          { href: url, download: c.filename ?? "", "aria-label": tr.t("download", { name: label }) },
          `📎 ${label}`,
        );
      }
      case "location": {
        const [lat, lon] =
          /^geo:(-?[\d.]+),(-?[\d.]+)/
            .exec(c.geo_uri ?? "")
            ?.slice(1)
            .map(Number) ?? [];
        const map =
          lat !== undefined && lon !== undefined
            ? `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=15/${lat}/${lon}`
            : null;
        const thumbnail = safeUrl(c.thumbnail_url, base);
        return [
          `📍 ${c.description ?? tr.t("location")} `,
          map && h("a", { href: map, target: "_blank", rel: "noopener noreferrer" }, tr.t("openMap")),
          thumbnail && h("img", { class: "media", src: thumbnail, alt: c.description ?? tr.t("location") }),
        ];
      }
      case "poll": {
        const voted = this.votes.get(m.event_id);
        return h(
          "div",
          { class: "poll", role: "group", "aria-label": `${tr.t("poll")}: ${c.question}` },
          h("strong", {}, c.question),
          c.options.map((option, index) => {
            const count = c.responses.find((r) => r.option_index === index)?.count ?? 0;
            return h(
              "button",
              {
                "data-key": `vote:${m.event_id}:${option.id}`,
                "aria-pressed": String(voted === option.id),
                "aria-label": tr.plural("vote", count, { option: option.text }),
                onclick: () => void this.vote(m.event_id, option.id),
              },
              h("span", {}, option.text),
              h("span", {}, String(count)),
            );
          }),
        );
      }
      default:
        return h("span", { class: "deleted" }, c.type === "unknown" && c.fallback ? c.fallback : tr.t("unsupported"));
    }
  }

  /** The reaction buttons, the "add a reaction" toggle and, when open, its palette. */
  private reactions(m: Message): Child[] {
    const tr = this.tr;
    const id = m.event_id;
    const open = this.palette === id;
    return [
      m.reactions.map((r) =>
        h(
          "button",
          {
            "data-key": `react:${id}:${r.key}`,
            "aria-pressed": String(r.mine),
            "aria-label": r.mine
              ? tr.t("reactionMine", { reaction: tr.plural("reaction", r.count, { key: r.key }) })
              : tr.plural("reaction", r.count, { key: r.key }),
            onclick: () => void this.react(m, r.key),
          },
          `${r.key} ${r.count}`,
        ),
      ),
      h(
        "button",
        {
          class: "link",
          "data-key": `palette:${id}`,
          "aria-expanded": String(open),
          "aria-label": tr.t("react"),
          title: tr.t("react"),
          onclick: () => this.toggle("palette", id),
        },
        "☺+",
      ),
      open &&
        h(
          "span",
          { class: "palette", role: "group", "aria-label": tr.t("react") },
          QUICK_REACTIONS.map((key) =>
            h(
              "button",
              {
                "data-key": `quick:${id}:${key}`,
                "aria-label": tr.t("reactWith", { key }),
                onclick: () => ((this.palette = null), void this.react(m, key)),
              },
              key,
            ),
          ),
        ),
    ];
  }

  /** A reply or edit form (inline under a comment); its draft survives re-renders. */
  private form(
    key: string,
    label: string,
    action: string,
    send: (text: string) => Promise<{ submission_id: string }>,
    initial = "",
  ): HTMLElement {
    const tr = this.tr;
    const area = h("textarea", {
      "data-key": `${key}:text`,
      "aria-label": label,
      placeholder: tr.t("replyPlaceholder"),
      required: true,
    });
    area.value = this.drafts.get(key) ?? initial;
    area.addEventListener("input", () => this.drafts.set(key, area.value));
    const close = () => {
      this.drafts.delete(key);
      this.replyTo = this.editing = null;
      this.schedule();
    };
    const form = h(
      "form",
      { class: "reply-form", "aria-label": label },
      area,
      h(
        "div",
        { class: "actions" },
        h("button", { class: "primary", type: "submit", "data-key": `${key}:send` }, action),
        h("button", { type: "button", class: "link", onclick: close }, tr.t("cancel")),
      ),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.send(form, () => send(area.value.trim())).then((ok) => ok && close());
    });
    area.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) form.requestSubmit();
      if (e.key === "Escape") close();
    });
    queueMicrotask(() => !this.root.activeElement?.closest("form") && area.focus());
    return form;
  }

  /** The main composer: display name, text, stickers and attachments. */
  private composer(): HTMLElement {
    const tr = this.tr;
    const name = h("input", {
      name: "name",
      autocomplete: "nickname",
      maxlength: 50,
      placeholder: tr.t("namePlaceholder"),
    });
    name.value = localStorage.getItem(nameKey(this.site)) ?? "";
    name.addEventListener("change", () => localStorage.setItem(nameKey(this.site), name.value.trim()));
    const text = h("textarea", {
      name: "comment",
      placeholder: tr.t("commentPlaceholder"),
      required: true,
      "aria-describedby": "composer-hint",
    });
    const file = h("input", { type: "file", class: "sr", tabindex: -1, "aria-hidden": "true" });
    const stickers = h("div", { class: "stickers", role: "group", "aria-label": tr.t("sticker") });
    const form = h(
      "form",
      { "aria-label": tr.t("comment") },
      h("label", {}, tr.t("name"), name),
      h("label", {}, tr.t("comment"), text),
      h("p", { class: "hint", id: "composer-hint" }, tr.t("markdownHint")),
      h(
        "div",
        { class: "actions" },
        h("button", { class: "primary", type: "submit" }, tr.t("post")),
        h("button", { type: "button", class: "link", onclick: () => file.click() }, `📎 ${tr.t("attach")}`),
        h(
          "button",
          {
            type: "button",
            class: "link",
            "aria-expanded": "false",
            onclick: (e: Event) => this.toggleStickers(e.currentTarget as HTMLButtonElement, stickers),
          },
          `🙂 ${tr.t("sticker")}`,
        ),
        file,
      ),
      stickers,
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.send(form, () =>
        this.client!.postComment(this.page, {
          content: text.value.trim(),
          markdown: true,
          displayName: this.displayName(),
        }),
      ).then((ok) => ok && (text.value = ""));
    });
    text.addEventListener("keydown", (e) => e.key === "Enter" && (e.ctrlKey || e.metaKey) && form.requestSubmit());
    file.addEventListener("change", () => {
      const chosen = file.files?.[0];
      if (!chosen) return;
      void this.send(form, async () =>
        this.client!.postMedia(this.page, new Uint8Array(await chosen.arrayBuffer()), {
          mime: chosen.type || "application/octet-stream",
          filename: chosen.name,
          displayName: this.displayName(),
        }),
      );
      file.value = "";
    });
    return form;
  }

  private toggleStickers(button: HTMLButtonElement, host: HTMLElement): void {
    this.showStickers = !this.showStickers;
    button.setAttribute("aria-expanded", String(this.showStickers));
    host.replaceChildren(
      ...(this.showStickers
        ? this.stickers.flatMap((pack) =>
            pack.images.map((image) =>
              h(
                "button",
                {
                  type: "button",
                  "aria-label": image.body || image.shortcode,
                  title: image.body || image.shortcode,
                  onclick: () =>
                    void this.send(host, () =>
                      this.client!.postComment(this.page, {
                        media: { kind: "sticker", url: image.url },
                        displayName: this.displayName(),
                      }),
                    ),
                },
                h("img", { src: safeUrl(image.proxy_url, this.api), alt: "" }),
              ),
            ),
          )
        : []),
    );
  }

  private displayName(): string | null {
    return (
      localStorage.getItem(nameKey(this.site)) ||
      (this.root.querySelector<HTMLInputElement>("input[name=name]")?.value.trim() ?? "") ||
      null
    );
  }

  /** Runs a write with `container`'s buttons disabled; the result shows in the notice line. */
  private async send(container: HTMLElement, write: () => Promise<{ submission_id: string }>): Promise<boolean> {
    const buttons = [...container.querySelectorAll("button")];
    buttons.forEach((b) => (b.disabled = true));
    this.notice.className = "status";
    this.notice.textContent = this.tr.t("sending");
    try {
      const { submission_id } = await write();
      this.pending.add(submission_id);
      this.schedule();
      // A comment held for review never arrives live: the personalized read shows it awaiting review.
      const list = this.list;
      setTimeout(() => {
        if (list && list === this.list && this.pending.has(submission_id)) void list.loadPage(1).catch(() => {});
      }, 2000);
      return true;
    } catch (err) {
      this.fail(err);
      return false;
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  private fail(err: unknown): void {
    const code = err instanceof ApiError ? err.code : null;
    if (code === "page-closed" && this.list) {
      this.list.closed = true;
      this.schedule();
    }
    const reason = code === "author-banned" ? this.tr.t("banned") : code === "page-closed" ? this.tr.t("closed") : null;
    this.notice.className = "status error";
    this.notice.textContent = this.tr.t("failed", { reason: reason ?? describe(err) });
  }

  private toggle(field: "replyTo" | "editing" | "palette", id: string): void {
    this[field] = this[field] === id ? null : id;
    this.schedule();
  }

  private async react(m: Message, key: string): Promise<void> {
    const mine = !m.reactions.find((r) => r.key === key)?.mine;
    this.list!.setMine(m.event_id, key, mine);
    try {
      await (mine ? this.client!.react(this.page, m.event_id, key) : this.client!.unreact(this.page, m.event_id, key));
    } catch (err) {
      this.list!.setMine(m.event_id, key, !mine);
      this.fail(err);
    }
  }

  private async vote(pollId: string, optionId: string): Promise<void> {
    try {
      await this.client!.vote(this.page, pollId, optionId);
      this.votes.set(pollId, optionId);
      this.notice.textContent = this.tr.t("voted");
      this.schedule();
    } catch (err) {
      this.fail(err);
    }
  }

  private async deleteComment(id: string): Promise<void> {
    if (!confirm(this.tr.t("confirmDelete"))) return;
    await this.send(this.listHost, () => this.client!.deleteComment(this.page, id));
  }
}

if (!customElements.get("matrix-comments")) customElements.define("matrix-comments", MatrixComments);
