/// <reference lib="dom" />
// <matrix-comments site="…" page="…"> — the embeddable comment widget, built on the SDK.
// Optional attributes: api (the service's base URL; default: where this script was loaded
// from), theme ("light" | "dark"; default: the visitor's preference), per-page (default 50).
import { ApiError, CommentList, CommentsClient, indexedDbKeyStore, type CommentNode, type Message, type StickerPack } from "../client/index.ts";
import { h, linkify, safeUrl, type Child } from "./dom.ts";
import { css } from "./styles.ts";
import { strings, type Strings } from "./strings.ts";

const QUICK_REACTIONS = ["👍", "❤️", "😂", "🎉", "😮", "😢"];
/** Where this script was loaded from: the service that serves it is the API's default base. */
const scriptOrigin = (() => {
  const src = (document.currentScript as HTMLScriptElement | null)?.src;
  return src ? new URL(src).origin : null;
})();

const nameKey = (site: string) => `matrix-comments:name:${site}`;
const describe = (err: unknown) => (err instanceof ApiError ? (err.problem?.detail ?? err.message) : err instanceof Error ? err.message : String(err));
const authorName = (m: Message) => m.author.display_name || (m.author.type === "matrix" ? (m.author.mxid ?? "") : "") || MatrixComments.strings.anonymous;

export class MatrixComments extends HTMLElement {
  static strings: Strings = strings;
  static observedAttributes = ["site", "page", "api"];

  private readonly root = this.attachShadow({ mode: "open" });
  private client: CommentsClient | null = null;
  private list: CommentList | null = null;
  private stickers: StickerPack[] = [];
  private loadError: string | null = null;
  private replyTo: string | null = null;
  private editing: string | null = null;
  private palette: string | null = null;
  private showStickers = false;
  private readonly drafts = new Map<string, string>();
  private readonly votes = new Map<string, string>();
  /** Submissions posted from here and not yet seen in the list. */
  private readonly pending = new Set<string>();
  private frame = 0;
  private readonly rendered = new Map<string, { key: string; item: HTMLElement; replies: HTMLElement }>();
  private readonly listHost = h("div");
  private readonly composerHost = h("div");
  private readonly live = h("span", { class: "status", role: "status" });
  private readonly typing = h("p", { class: "typing", "aria-live": "polite" });
  private readonly notice = h("p", { class: "status", "aria-live": "polite" });

  private get s() {
    return MatrixComments.strings;
  }

  private get site(): string {
    return this.getAttribute("site") ?? "";
  }

  private get page(): string {
    return this.getAttribute("page") ?? "";
  }

  private get api(): string {
    return this.getAttribute("api") ?? scriptOrigin ?? location.origin;
  }

  connectedCallback(): void {
    this.root.replaceChildren(
      h("style", {}, css),
      h("section", { "aria-label": this.s.title }, h("h2", {}, this.s.title, " ", this.live), this.listHost, this.typing, this.composerHost, this.notice),
    );
    void this.start();
  }

  disconnectedCallback(): void {
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
    this.rendered.clear();
    this.listHost.replaceChildren(h("p", { class: "status" }, this.s.loading));
    try {
      this.client = await CommentsClient.connect({ baseUrl: this.api, site: this.site, keyStore: indexedDbKeyStore() });
      this.list = new CommentList(this.client, this.page, () => this.schedule(), Number(this.getAttribute("per-page")) || 50);
      this.composerHost.replaceChildren(this.composer());
      await this.list.start();
      this.stickers = await this.client.stickers().catch(() => []);
    } catch (err) {
      this.loadError = describe(err);
    }
    this.schedule();
  }

  /** Renders at most once a frame, however many events arrive. */
  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => ((this.frame = 0), this.render()));
  }

  private render(): void {
    const list = this.list;
    const s = this.s;
    if (this.loadError || !list) {
      this.listHost.replaceChildren(h("p", { class: "error", role: "alert" }, s.loadFailed, " ", this.loadError), h("button", { onclick: () => void this.start() }, s.retry));
      return;
    }
    for (const message of list.all()) if (message.submission_id && this.pending.delete(message.submission_id)) this.notice.textContent = s.posted;
    // The list is rebuilt from state; the focused control (found again by its data-key) and
    // its caret survive.
    const active = this.root.activeElement as HTMLElement | null;
    const key = active?.dataset.key;
    const caret = active instanceof HTMLTextAreaElement ? ([active.selectionStart, active.selectionEnd] as const) : null;
    const total = list.meta?.total ?? 0;
    const tree = list.tree();
    this.listHost.replaceChildren(
      h("p", { class: "status" }, tree.length === 0 ? s.empty : s.count(Math.max(total, list.all().length))),
      h("ol", {}, tree.map((node) => this.comment(node))),
      h("div", {}, list.hasMore && h("button", { class: "more", "data-key": "more", onclick: () => void list.loadMore().catch((err) => this.fail(err)) }, s.more)),
    );
    if (key) {
      const again = this.root.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
      again?.focus();
      if (again instanceof HTMLTextAreaElement && caret) again.setSelectionRange(caret[0], caret[1]);
    }
    this.live.textContent = list.status === "open" ? `● ${s.live}` : list.status === "reconnecting" ? s.offline : "";
    const typing = list.typing.map((u) => u.display_name || (u.type === "matrix" ? u.mxid : s.anonymous));
    this.typing.textContent = typing.length ? s.typing(typing) : "";
  }

  /**
   * A comment's list item: reused while what it shows is unchanged, so a live event does not
   * rebuild the whole list under the visitor's pointer; its replies are arranged afresh.
   */
  private comment(node: CommentNode): HTMLElement {
    const m = node.message;
    const id = m.event_id;
    const key = JSON.stringify([m, this.replyTo === id, this.editing === id, this.palette === id, this.votes.get(id) ?? null]);
    let entry = this.rendered.get(id);
    if (entry?.key !== key) {
      const replies = h("ol", { class: "replies" });
      entry = { key, item: this.renderComment(m, replies), replies };
      this.rendered.set(id, entry);
    }
    entry.replies.replaceChildren(...node.children.map((child) => this.comment(child)));
    entry.replies.hidden = node.children.length === 0;
    return entry.item;
  }

  private renderComment(m: Message, replies: HTMLElement): HTMLElement {
    const s = this.s;
    const id = m.event_id;
    const name = authorName(m);
    const gone = m.status === "redacted";
    const own = !gone && m.author.type === "visitor" && m.author.public_key === this.client!.identity.publicKey;
    const avatar = safeUrl(m.author.avatar_url, this.api);
    return h(
      "li",
      {},
      h(
        "article",
        { "aria-label": `${name}, ${new Date(m.created_at).toLocaleString()}`, "data-id": id },
        h(
          "header",
          {},
          avatar ? h("img", { class: "avatar", src: avatar, alt: s.avatarOf(name), loading: "lazy" }) : h("span", { class: "avatar", "aria-hidden": "true" }, name.slice(0, 1).toUpperCase()),
          h("span", { class: "name" }, name),
          own && h("span", { class: "meta" }, `(${s.you})`),
          m.author.type === "matrix" && h("span", { class: "badge", title: s.matrixTitle(m.author.mxid ?? "") }, s.matrixBadge),
          h("time", { datetime: m.created_at }, new Date(m.created_at).toLocaleString()),
          m.status === "edited" && h("span", { class: "meta" }, s.edited),
        ),
        this.editing === id ? this.form(`edit:${id}`, s.edit, s.save, (text) => this.client!.editComment(this.page, id, text), this.textOf(m)) : h("div", { class: "body" }, this.content(m)),
        !gone &&
          h(
            "div",
            { class: "row" },
            this.reactions(m),
            h("button", { class: "link", "data-key": `reply:${id}`, "aria-expanded": String(this.replyTo === id), onclick: () => this.toggle("replyTo", id) }, s.reply),
            own && m.content.type === "text" && h("button", { class: "link", "data-key": `edit:${id}`, onclick: () => this.toggle("editing", id) }, s.edit),
            own && h("button", { class: "link", "data-key": `delete:${id}`, onclick: () => void this.deleteComment(id) }, s.delete),
          ),
        this.replyTo === id &&
          this.form(`reply:${id}`, s.repliesTo(name), s.reply, (text) =>
            this.client!.postComment(this.page, { content: text, displayName: this.displayName(), replyTo: id, threadRoot: m.thread_root ?? id }),
          ),
        replies,
      ),
    );
  }

  private textOf(m: Message): string {
    return m.content.type === "text" ? m.content.body : "";
  }

  /** Only `body` is shown, as text: formatted_body (HTML from Matrix clients) never is. */
  private content(m: Message): Child {
    const s = this.s;
    const c = m.content;
    const base = this.api;
    switch (c.type) {
      case "text":
        return linkify(c.body, base);
      case "redacted":
        return h("span", { class: "deleted" }, s.deleted);
      case "media": {
        const url = safeUrl(c.url, base);
        const label = c.alt_text || c.body || c.filename || c.kind;
        if (c.kind === "sticker") return h("img", { class: "sticker", src: url ?? safeUrl(c.thumbnail_url, base), alt: label, title: label });
        if (c.kind === "image") return h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, h("img", { class: "media", src: safeUrl(c.thumbnail_url, base) ?? url, alt: label, loading: "lazy" }));
        if (c.kind === "video") return h("video", { src: url, controls: true, preload: "metadata", "aria-label": label });
        if (c.kind === "audio") return h("audio", { src: url, controls: true, preload: "none", "aria-label": label });
        return h("a", { href: url, download: c.filename ?? "", "aria-label": s.download(label) }, `📎 ${label}`);
      }
      case "location": {
        const [lat, lon] = /^geo:(-?[\d.]+),(-?[\d.]+)/.exec(c.geo_uri)?.slice(1).map(Number) ?? [];
        const map = lat !== undefined && lon !== undefined ? `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=15/${lat}/${lon}` : null;
        const thumbnail = safeUrl(c.thumbnail_url, base);
        return [`📍 ${c.description ?? s.location} `, map && h("a", { href: map, target: "_blank", rel: "noopener noreferrer" }, s.openMap), thumbnail && h("img", { class: "media", src: thumbnail, alt: c.description ?? s.location })];
      }
      case "poll": {
        const voted = this.votes.get(m.event_id);
        return h(
          "div",
          { class: "poll", role: "group", "aria-label": `${s.poll}: ${c.question}` },
          h("strong", {}, c.question),
          c.options.map((option, index) => {
            const count = c.responses.find((r) => r.option_index === index)?.count ?? 0;
            return h(
              "button",
              { "data-key": `vote:${m.event_id}:${option.id}`, "aria-pressed": String(voted === option.id), "aria-label": s.vote(option.text, count), onclick: () => void this.vote(m.event_id, option.id) },
              h("span", {}, option.text),
              h("span", {}, String(count)),
            );
          }),
        );
      }
      default:
        return h("span", { class: "deleted" }, c.type === "unknown" && c.fallback ? c.fallback : s.unsupported);
    }
  }

  /** The reaction buttons, the "add a reaction" toggle and, when open, its palette. */
  private reactions(m: Message): Child[] {
    const s = this.s;
    const id = m.event_id;
    const open = this.palette === id;
    return [
      m.reactions.map((r) =>
        h("button", { "data-key": `react:${id}:${r.key}`, "aria-pressed": String(r.mine), "aria-label": s.reaction(r.key, r.count, r.mine), onclick: () => void this.react(m, r.key) }, `${r.key} ${r.count}`),
      ),
      h("button", { class: "link", "data-key": `palette:${id}`, "aria-expanded": String(open), "aria-label": s.react, title: s.react, onclick: () => this.toggle("palette", id) }, "☺+"),
      open &&
        h(
          "span",
          { class: "palette", role: "group", "aria-label": s.react },
          QUICK_REACTIONS.map((key) => h("button", { "data-key": `quick:${id}:${key}`, "aria-label": s.reactWith(key), onclick: () => ((this.palette = null), void this.react(m, key)) }, key)),
        ),
    ];
  }

  /** A reply or edit form (inline under a comment); its draft survives re-renders. */
  private form(key: string, label: string, action: string, send: (text: string) => Promise<{ submission_id: string }>, initial = ""): HTMLElement {
    const s = this.s;
    const area = h("textarea", { "data-key": `${key}:text`, "aria-label": label, placeholder: s.replyPlaceholder, required: true });
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
      h("div", { class: "actions" }, h("button", { class: "primary", type: "submit", "data-key": `${key}:send` }, action), h("button", { type: "button", class: "link", onclick: close }, s.cancel)),
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
    const s = this.s;
    const name = h("input", { name: "name", autocomplete: "nickname", maxlength: 50, placeholder: s.namePlaceholder });
    name.value = localStorage.getItem(nameKey(this.site)) ?? "";
    name.addEventListener("change", () => localStorage.setItem(nameKey(this.site), name.value.trim()));
    const text = h("textarea", { name: "comment", placeholder: s.commentPlaceholder, required: true });
    const file = h("input", { type: "file", class: "sr", tabindex: -1, "aria-hidden": "true" });
    const stickers = h("div", { class: "stickers", role: "group", "aria-label": s.sticker });
    const form = h(
      "form",
      { "aria-label": s.comment },
      h("label", {}, s.name, name),
      h("label", {}, s.comment, text),
      h(
        "div",
        { class: "actions" },
        h("button", { class: "primary", type: "submit" }, s.post),
        h("button", { type: "button", class: "link", onclick: () => file.click() }, `📎 ${s.attach}`),
        h("button", { type: "button", class: "link", "aria-expanded": "false", onclick: (e: Event) => this.toggleStickers(e.currentTarget as HTMLButtonElement, stickers) }, `🙂 ${s.sticker}`),
        file,
      ),
      stickers,
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.send(form, () => this.client!.postComment(this.page, { content: text.value.trim(), displayName: this.displayName() })).then((ok) => ok && (text.value = ""));
    });
    text.addEventListener("keydown", (e) => e.key === "Enter" && (e.ctrlKey || e.metaKey) && form.requestSubmit());
    file.addEventListener("change", () => {
      const chosen = file.files?.[0];
      if (!chosen) return;
      void this.send(form, async () =>
        this.client!.postMedia(this.page, new Uint8Array(await chosen.arrayBuffer()), { mime: chosen.type || "application/octet-stream", filename: chosen.name, displayName: this.displayName() }),
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
                { type: "button", "aria-label": image.body || image.shortcode, title: image.body || image.shortcode, onclick: () => void this.send(host, () => this.client!.postComment(this.page, { media: { kind: "sticker", url: image.url }, displayName: this.displayName() })) },
                h("img", { src: safeUrl(image.proxy_url, this.api), alt: "" }),
              ),
            ),
          )
        : []),
    );
  }

  private displayName(): string | null {
    return localStorage.getItem(nameKey(this.site)) || (this.root.querySelector<HTMLInputElement>("input[name=name]")?.value.trim() ?? "") || null;
  }

  /** Runs a write with `container`'s buttons disabled; the result shows in the notice line. */
  private async send(container: HTMLElement, write: () => Promise<{ submission_id: string }>): Promise<boolean> {
    const buttons = [...container.querySelectorAll("button")];
    buttons.forEach((b) => (b.disabled = true));
    this.notice.className = "status";
    this.notice.textContent = this.s.sending;
    try {
      const { submission_id } = await write();
      this.pending.add(submission_id);
      this.schedule();
      return true;
    } catch (err) {
      this.fail(err);
      return false;
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  private fail(err: unknown): void {
    this.notice.className = "status error";
    this.notice.textContent = this.s.failed(describe(err));
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
      this.notice.textContent = this.s.voted;
      this.schedule();
    } catch (err) {
      this.fail(err);
    }
  }

  private async deleteComment(id: string): Promise<void> {
    if (!confirm(this.s.confirmDelete)) return;
    await this.send(this.listHost, () => this.client!.deleteComment(this.page, id));
  }
}

if (!customElements.get("matrix-comments")) customElements.define("matrix-comments", MatrixComments);
