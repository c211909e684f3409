// A page's comments as a client shows them: the pages loaded so far merged with live events
// (created, updated, deleted, annotations, typing), in the list's order (oldest first, newest
// first, or the most reactions first), with replies arranged under the comment they answer.
import type { CommentsClient } from "./client.ts";
import type { LiveConnection, LiveStatus } from "./live.ts";
import type {
  ListQuery,
  LiveEvent,
  Message,
  PaginationMeta,
  PendingComment,
  ReactionSummary,
  UserRef,
} from "./types.ts";

/** A list's order: the API's (asc: oldest first, desc: newest first, top: most reactions first). */
export type ListOrder = NonNullable<ListQuery["order"]>;

const chronological = (a: Message, b: Message) =>
  a.origin_server_ts - b.origin_server_ts || (a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0);
const reactionTotal = (m: Message) => m.reactions.reduce((sum, r) => sum + r.count, 0);
/** The read's orders, applied to what is loaded (live events included). */
const COMPARE: Record<ListOrder, (a: Message, b: Message) => number> = {
  asc: chronological,
  desc: (a, b) => chronological(b, a),
  top: (a, b) => reactionTotal(b) - reactionTotal(a) || chronological(a, b),
};

export interface CommentNode {
  message: Message;
  children: CommentNode[];
}

/** The loaded comment `message` answers: the one it replies to, else its thread root. */
function parentOf(message: Message, nodes: Map<string, CommentNode>): CommentNode | undefined {
  return (
    (message.reply_to !== null ? nodes.get(message.reply_to) : undefined) ??
    (message.thread_root !== null ? nodes.get(message.thread_root) : undefined)
  );
}

/** Whether `node` is an ancestor of `candidate` (so nesting it there would make a cycle). */
function isWithin(candidate: CommentNode, node: CommentNode, nodes: Map<string, CommentNode>): boolean {
  const seen = new Set<CommentNode>();
  for (let at: CommentNode | undefined = candidate; at && !seen.has(at); ) {
    if (at === node) return true;
    seen.add(at);
    at = parentOf(at.message, nodes);
  }
  return false;
}

export class CommentList {
  private readonly messages = new Map<string, Message>();
  /** Reaction keys this visitor has on each comment: live payloads are not personalized. */
  private readonly mine = new Map<string, Set<string>>();
  private connection: LiveConnection | null = null;
  meta: PaginationMeta | null = null;
  typing: UserRef[] = [];
  status: LiveStatus = "closed";
  /** The page's pinned comments (event ids, pin order), as the last read or live event said. */
  pinned: string[] = [];
  /** The page is closed to new comments (as the last read said, or a write refused as page-closed). */
  closed = false;
  /** The viewer's own comments held for review, rejected or failed (personalized reads), not yet in the list. */
  private held: PendingComment[] = [];

  constructor(
    readonly client: CommentsClient,
    readonly page: string,
    private readonly onChange: () => void = () => {},
    readonly perPage = 50,
    readonly order: ListOrder = "asc",
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
    const result = await this.client.listComments(this.page, { page, per_page: this.perPage, order: this.order });
    this.meta = result.meta;
    this.pinned = result.pinned.map((m) => m.event_id);
    this.closed = result.closed;
    this.held = result.pending;
    // Pinned comments are shown first even when their place is on a page not loaded yet.
    for (const message of [...result.pinned, ...result.data]) {
      this.mine.set(message.event_id, new Set(message.reactions.filter((r) => r.mine).map((r) => r.key)));
      this.messages.set(message.event_id, message);
    }
    this.onChange();
  }

  /** The viewer's held and rejected comments, less those approved since (now in the list). */
  pending(): PendingComment[] {
    const sent = new Set([...this.messages.values()].map((m) => m.submission_id));
    return this.held.filter((p) => !sent.has(p.submission_id));
  }

  get(eventId: string): Message | undefined {
    return this.messages.get(eventId);
  }

  /**
   * Loads the pages after the last one loaded until `eventId` is among the comments (a link to
   * one comment); whether it is. Bounded by `maxPages` more pages.
   */
  async reveal(eventId: string, maxPages = 50): Promise<boolean> {
    for (let n = 0; !this.messages.has(eventId) && this.hasMore && n < maxPages; n++) await this.loadMore();
    return this.messages.has(eventId);
  }

  /** In the list's order. */
  all(): Message[] {
    return [...this.messages.values()].sort(COMPARE[this.order]);
  }

  /**
   * Top-level comments (pinned ones first, in pin order, then the list's order) with their
   * replies (oldest first): a comment sits under the comment it replies to, else under its
   * thread root (when loaded).
   */
  tree(): CommentNode[] {
    const nodes = new Map(
      [...this.messages.values()]
        .sort(chronological)
        .map((message) => [message.event_id, { message, children: [] as CommentNode[] }]),
    );
    const roots = new Set(nodes.values());
    for (const node of nodes.values()) {
      const parent = parentOf(node.message, nodes);
      if (parent && parent !== node && !isWithin(parent, node, nodes)) {
        parent.children.push(node);
        roots.delete(node);
      }
    }
    const pinRank = (node: CommentNode) => {
      const rank = this.pinned.indexOf(node.message.event_id);
      return rank === -1 ? this.pinned.length : rank;
    };
    return [...roots].sort((a, b) => pinRank(a) - pinRank(b) || COMPARE[this.order](a.message, b.message));
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
        this.messages.set(event.payload.event_id, {
          ...event.payload,
          reactions: this.personal(event.payload.event_id, event.payload.reactions),
        });
        break;
      case "message_deleted": {
        const message = this.messages.get(event.payload.event_id);
        if (message)
          this.messages.set(message.event_id, {
            ...message,
            status: "redacted",
            content: { type: "redacted" },
            reactions: [],
          });
        break;
      }
      case "message_annotations_changed": {
        const message = this.messages.get(event.payload.event_id);
        if (!message) return;
        const { reactions, poll_responses } = event.payload;
        const content =
          poll_responses && message.content.type === "poll"
            ? { ...message.content, responses: poll_responses }
            : message.content;
        this.messages.set(message.event_id, {
          ...message,
          content,
          reactions: this.personal(message.event_id, reactions),
        });
        break;
      }
      case "ephemeral":
        if (event.payload.kind !== "typing") return;
        this.typing = event.payload.users as UserRef[];
        break;
      case "pins_changed":
        // The page's pinned comments after a change of its m.room.pinned_events.
        this.pinned = event.payload.pinned;
        break;
    }
    this.onChange();
  }

  private personal(eventId: string, reactions: ReactionSummary[]): ReactionSummary[] {
    const keys = this.mine.get(eventId);
    return reactions.map((r) => ({ ...r, mine: keys?.has(r.key) ?? false }));
  }
}
