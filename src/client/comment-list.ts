// A page's comments as a client shows them: the pages loaded so far merged with live events
// (created, updated, deleted, annotations, typing), in chronological order, with replies and
// thread members arranged under the comment they belong to.
import type { CommentsClient } from "./client.ts";
import type { LiveConnection, LiveStatus } from "./live.ts";
import type { LiveEvent, Message, PaginationMeta, ReactionSummary, UserRef } from "./types.ts";

export interface CommentNode {
  message: Message;
  children: CommentNode[];
}

export class CommentList {
  private readonly messages = new Map<string, Message>();
  /** Reaction keys this visitor has on each comment: live payloads are not personalized. */
  private readonly mine = new Map<string, Set<string>>();
  private connection: LiveConnection | null = null;
  meta: PaginationMeta | null = null;
  typing: UserRef[] = [];
  status: LiveStatus = "closed";

  constructor(
    readonly client: CommentsClient,
    readonly page: string,
    private readonly onChange: () => void = () => {},
    readonly perPage = 50,
  ) {}

  /** Goes live first, then loads the first page, so nothing posted in between is missed. */
  async start(): Promise<void> {
    this.connection ??= this.client.live(this.page, {
      onEvent: (event) => this.apply(event),
      onStatus: (status) => {
        this.status = status;
        this.onChange();
      },
    });
    await this.loadPage(1);
  }

  stop(): void {
    this.connection?.close();
    this.connection = null;
  }

  get hasMore(): boolean {
    return this.meta !== null && this.meta.page < this.meta.total_pages;
  }

  /** Loads the page after the last one loaded. */
  async loadMore(): Promise<void> {
    if (this.hasMore) await this.loadPage(this.meta!.page + 1);
  }

  async loadPage(page: number): Promise<void> {
    const result = await this.client.listComments(this.page, { page, per_page: this.perPage });
    this.meta = result.meta;
    for (const message of result.data) {
      this.mine.set(message.event_id, new Set(message.reactions.filter((r) => r.mine).map((r) => r.key)));
      this.messages.set(message.event_id, message);
    }
    this.onChange();
  }

  get(eventId: string): Message | undefined {
    return this.messages.get(eventId);
  }

  /** Oldest first. */
  all(): Message[] {
    return [...this.messages.values()].sort((a, b) => a.origin_server_ts - b.origin_server_ts || (a.event_id < b.event_id ? -1 : 1));
  }

  /** Top-level comments with their replies: a comment sits under its thread root, else under the comment it replies to (when loaded). */
  tree(): CommentNode[] {
    const nodes = new Map(this.all().map((message) => [message.event_id, { message, children: [] as CommentNode[] }]));
    const roots: CommentNode[] = [];
    for (const node of nodes.values()) {
      const parentId = node.message.thread_root ?? node.message.reply_to;
      const parent = parentId !== null ? nodes.get(parentId) : undefined;
      (parent && parent !== node ? parent.children : roots).push(node);
    }
    return roots;
  }

  /** Records this visitor's own reaction change at once (the live event that follows confirms the count). */
  setMine(eventId: string, key: string, mine: boolean): void {
    const keys = this.mine.get(eventId) ?? new Set<string>();
    if (mine) keys.add(key);
    else keys.delete(key);
    this.mine.set(eventId, keys);
    const message = this.messages.get(eventId);
    if (message) {
      const existing = message.reactions.find((r) => r.key === key);
      const reactions = existing ? message.reactions : [...message.reactions, { key, count: 0, mine: false }];
      message.reactions = reactions
        .map((r) => (r.key === key && r.mine !== mine ? { ...r, count: r.count + (mine ? 1 : -1), mine } : r))
        .filter((r) => r.count > 0);
    }
    this.onChange();
  }

  apply(event: LiveEvent): void {
    switch (event.type) {
      case "message_created":
      case "message_updated":
        this.messages.set(event.payload.event_id, { ...event.payload, reactions: this.personal(event.payload.event_id, event.payload.reactions) });
        break;
      case "message_deleted": {
        const message = this.messages.get(event.payload.event_id);
        if (message) this.messages.set(message.event_id, { ...message, status: "redacted", content: { type: "redacted" }, reactions: [] });
        break;
      }
      case "message_annotations_changed": {
        const message = this.messages.get(event.payload.event_id);
        if (!message) return;
        const { reactions, poll_responses } = event.payload;
        const content = poll_responses && message.content.type === "poll" ? { ...message.content, responses: poll_responses } : message.content;
        this.messages.set(message.event_id, { ...message, content, reactions: this.personal(message.event_id, reactions) });
        break;
      }
      case "ephemeral":
        if (event.payload.kind !== "typing") return;
        this.typing = event.payload.users as UserRef[];
        break;
    }
    this.onChange();
  }

  private personal(eventId: string, reactions: ReactionSummary[]): ReactionSummary[] {
    const keys = this.mine.get(eventId);
    return reactions.map((r) => ({ ...r, mine: keys?.has(r.key) ?? false }));
  }
}
