// Sending a spooled import: each target page's comments, in time order, into the page's room
// (provisioned as the queue worker does), as one virtual user per imported author, with their
// original times; pages side by side, each page in order. What the room already holds from this
// source (its events carry the origin block, IMPORT_KEY) is not sent again, so a re-run after a
// kill, or with a newer export, sends only what is missing.
import { createHash } from "node:crypto";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { IMPORT_KEY, MAX_DISPLAY_NAME_CODE_POINTS, importOriginOf, withRelations } from "../../matrix/events.ts";
import { htmlMessage } from "./matrix-html.ts";
import type { ImportSource, SkipReason } from "./records.ts";
import type { Spool, SpooledComment } from "./spool-store.ts";
import { ContentKey, EventType, MsgType, RelType } from "../../contract/matrix-vocabulary.ts";

/** What the import needs of the rooms feature (the worker's Provisioner and the room store). */
export interface ImportRooms {
  /** The page's active room, created as the worker creates it on a first comment. */
  ensurePageRoom(siteId: string, pageSlug: string): Promise<string>;
  activeRoomId(siteId: string, pageSlug: string): Promise<string | null>;
}

export interface ImportOptions {
  siteId: string;
  source: ImportSource;
  /** Comments created before this time (ms) are not sent. */
  since: number | null;
  dryRun: boolean;
  /** Pages sent side by side. */
  concurrency: number;
}

/** Report lists (orphans, errors) keep this many entries; their counts are exact. */
const LISTED = 100;
const SEND_ATTEMPTS = 4;

export interface ImportReport {
  source: ImportSource;
  site_id: string;
  dry_run: boolean;
  pages: number;
  /** Comments sent (in a dry run: that would be sent). */
  comments: number;
  /** Comments the rooms held already (an earlier run sent them). */
  already_present: number;
  /** Distinct authors of the comments sent. */
  authors: number;
  /** Comments that received replies in this run (thread roots). */
  threads: number;
  skipped: Record<SkipReason | "before_since" | "empty", number>;
  /** Comments whose parent is not in the file or not imported: sent at the top level. */
  orphans: number;
  orphan_ids: string[];
  errors: number;
  error_list: Array<{ page_slug: string | null; id: string | null; message: string }>;
}

export const emptyReport = (options: ImportOptions): ImportReport => ({
  source: options.source,
  site_id: options.siteId,
  dry_run: options.dryRun,
  pages: 0,
  comments: 0,
  already_present: 0,
  authors: 0,
  threads: 0,
  skipped: { deleted: 0, spam: 0, pending: 0, pingback: 0, unsupported: 0, before_since: 0, empty: 0 },
  orphans: 0,
  orphan_ids: [],
  errors: 0,
  error_list: [],
});

export interface PageOutcome {
  slug: string;
  sent: number;
  present: number;
  failed: boolean;
}

export interface ImportListener {
  planned(pages: number, comments: number): void;
  /** One source comment handled (sent, present, skipped or failed). */
  comment(): void;
  page(outcome: PageOutcome): void;
}

/** An event of the room as the import needs it: the comment it is, and its thread. */
interface Placed {
  eventId: string;
  threadRoot: string | null;
}

const truncateCodePoints = (text: string, max: number) => Array.from(text).slice(0, max).join("");

export class Importer {
  private readonly authors = new Map<string, Promise<string>>();
  private readonly authorsSent = new Set<string>();

  constructor(
    private readonly hs: Homeserver,
    private readonly rooms: ImportRooms,
    private readonly spool: Spool,
    private readonly options: ImportOptions,
    private readonly report: ImportReport,
    private readonly listener: ImportListener,
  ) {}

  /** Sends every planned page, `concurrency` at a time. */
  async run(pages: Array<{ slug: string }>): Promise<void> {
    let next = 0;
    const lane = async () => {
      while (next < pages.length) {
        const { slug } = pages[next++]!;
        const outcome = await this.page(slug).catch((err: unknown) => {
          this.error(slug, null, (err as Error)?.message ?? String(err));
          return { slug, sent: 0, present: 0, failed: true };
        });
        this.report.pages++;
        this.listener.page(outcome);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.options.concurrency) }, lane));
    this.report.authors = this.authorsSent.size;
  }

  private error(slug: string | null, id: string | null, message: string): void {
    this.report.errors++;
    if (this.report.error_list.length < LISTED) this.report.error_list.push({ page_slug: slug, id, message });
  }

  private async page(slug: string): Promise<PageOutcome> {
    const { siteId, dryRun } = this.options;
    // Retried like a send: on SQLite the service's own writes may hold the database a moment.
    const known = await this.retrying(() => this.rooms.activeRoomId(siteId, slug));
    const roomId = dryRun ? known : await this.retrying(() => this.rooms.ensurePageRoom(siteId, slug));
    // A room this run created holds nothing of the import yet.
    const present = known ? await this.presentIn(known) : new Map<string, Placed>();
    const outcome: PageOutcome = { slug, sent: 0, present: 0, failed: false };
    const placed = new Map<string, Placed>();
    const waiting = new Map<string, SpooledComment[]>();
    const joined = new Set<string>();
    const threadRoots = new Set<string>();
    const pins: string[] = [];

    const send = async (comment: SpooledComment, parent: Placed | null): Promise<void> => {
      const text = comment.format === "html" ? htmlMessage(comment.body) : { body: comment.body.trim() };
      if (text.body === "") {
        this.report.skipped.empty++;
        return;
      }
      const threadRoot = parent ? (parent.threadRoot ?? parent.eventId) : null;
      let eventId = `$dry-run-${comment.id}`;
      if (!dryRun) {
        const userId = await this.author(comment.authorKey, comment.authorName);
        if (!joined.has(userId)) {
          await this.retrying(() =>
            this.hs.joinAt(userId, roomId!, this.displayName(comment.authorName), comment.createdAt),
          );
          joined.add(userId);
        }
        const content = withRelations(
          { msgtype: MsgType.Text, ...text, [IMPORT_KEY]: { source: this.options.source, id: comment.id } },
          parent?.eventId ?? null,
          threadRoot,
        );
        eventId = await this.retrying(() =>
          this.hs.sendEventAt(userId, roomId!, EventType.Message, this.txnId(comment.id), content, comment.createdAt),
        );
      }
      this.authorsSent.add(comment.authorKey);
      if (threadRoot) threadRoots.add(threadRoot);
      if (comment.pinned) pins.push(eventId);
      placed.set(comment.id, { eventId, threadRoot });
      this.report.comments++;
      outcome.sent++;
    };

    /** Sends a comment, then the replies that waited for it (and theirs). */
    const sendWithReplies = async (first: SpooledComment, parent: Placed | null, orphan: boolean): Promise<void> => {
      const queue: Array<{ comment: SpooledComment; parent: Placed | null; orphan: boolean }> = [
        { comment: first, parent, orphan },
      ];
      for (let item = queue.shift(); item; item = queue.shift()) {
        const { comment } = item;
        if (item.orphan) this.orphan(comment.id);
        try {
          await send(comment, item.parent);
        } catch (err) {
          this.error(slug, comment.id, (err as Error)?.message ?? String(err));
        }
        this.listener.comment();
        const replies = waiting.get(comment.id);
        waiting.delete(comment.id);
        const sent = placed.get(comment.id) ?? null;
        for (const reply of replies ?? []) queue.push({ comment: reply, parent: sent, orphan: sent === null });
      }
    };

    for (const comment of this.spool.pageComments(slug)) {
      if (comment.skip) {
        this.report.skipped[comment.skip]++;
        this.listener.comment();
        continue;
      }
      const already = present.get(comment.id);
      if (already) {
        placed.set(comment.id, already);
        this.report.already_present++;
        outcome.present++;
        this.listener.comment();
        for (const reply of waiting.get(comment.id) ?? []) await sendWithReplies(reply, already, false);
        waiting.delete(comment.id);
        continue;
      }
      if (this.options.since !== null && comment.createdAt < this.options.since) {
        this.report.skipped.before_since++;
        this.listener.comment();
        continue;
      }
      if (comment.parentId === null) {
        await sendWithReplies(comment, null, false);
        continue;
      }
      const parent = placed.get(comment.parentId) ?? present.get(comment.parentId);
      if (parent) {
        await sendWithReplies(comment, parent, false);
        continue;
      }
      // A parent later in the file's time order (the same page, to be sent): the reply waits for it.
      const where = this.spool.locate(comment.parentId);
      const comesLater =
        where?.slug === slug &&
        where.skip === null &&
        !(this.options.since !== null && where.createdAt < this.options.since);
      if (comesLater) {
        const list = waiting.get(comment.parentId) ?? [];
        list.push(comment);
        waiting.set(comment.parentId, list);
      } else await sendWithReplies(comment, null, true);
    }
    // Replies whose parent never came (a cycle of parents): at the top level.
    for (const replies of [...waiting.values()]) for (const reply of replies) await sendWithReplies(reply, null, true);
    waiting.clear();

    this.report.threads += threadRoots.size;
    if (pins.length > 0 && !dryRun) await this.pin(roomId!, pins);
    return outcome;
  }

  private orphan(id: string): void {
    this.report.orphans++;
    if (this.report.orphan_ids.length < LISTED) this.report.orphan_ids.push(id);
  }

  /** The imported comments of this source a room holds, read from its timeline (the record, even before the projection has it). */
  private async presentIn(roomId: string): Promise<Map<string, Placed>> {
    const present = new Map<string, Placed>();
    for (let from: string | null = null; ; ) {
      const page = await this.retrying(() => this.hs.messagesForward(roomId, from, 1000));
      for (const event of page.chunk) {
        const content = event.content as Record<string, unknown> | undefined;
        const origin = importOriginOf(content);
        if (origin?.source !== this.options.source) continue;
        const relates = content?.[ContentKey.RelatesTo] as { rel_type?: string; event_id?: string } | undefined;
        present.set(origin.id, {
          eventId: String(event.event_id),
          threadRoot: relates?.rel_type === RelType.Thread ? (relates.event_id ?? null) : null,
        });
      }
      if (page.end === null || page.chunk.length === 0) return present;
      from = page.end;
    }
  }

  /** Adds the pinned comments to the room's pinned events (as the bot, keeping what is pinned). */
  private async pin(roomId: string, eventIds: string[]): Promise<void> {
    const current = await this.hs.stateContent(roomId, EventType.PinnedEvents);
    const pinned = Array.isArray(current?.pinned) ? (current.pinned as string[]) : [];
    const added = eventIds.filter((id) => !pinned.includes(id));
    if (added.length > 0)
      await this.hs.sendState(roomId, EventType.PinnedEvents, "", { pinned: [...pinned, ...added] });
  }

  private displayName(name: string): string {
    return truncateCodePoints(name.trim() || "Anonymous", MAX_DISPLAY_NAME_CODE_POINTS);
  }

  /** The author's virtual user, registered with its name once per run. */
  private author(key: string, name: string): Promise<string> {
    let user = this.authors.get(key);
    if (!user) {
      const { siteId } = this.options;
      user = (async () => {
        await this.retrying(() => this.hs.registerUser(this.hs.names.importedAuthorLocalpart(siteId, key)));
        const userId = this.hs.names.importedAuthorUserId(siteId, key);
        // Set only when it differs: a profile change is carried into every room the user is in.
        const wanted = this.displayName(name);
        if ((await this.retrying(() => this.hs.displayName(userId))) !== wanted)
          await this.retrying(() => this.hs.setDisplayName(userId, wanted));
        return userId;
      })();
      user.catch(() => this.authors.delete(key));
      this.authors.set(key, user);
    }
    return user;
  }

  /** The transaction id of a comment's send: a resend while the homeserver remembers it answers the same event. */
  private txnId(id: string): string {
    const { siteId, source } = this.options;
    return `import.${createHash("sha256").update(`${siteId}\0${source}\0${id}`).digest("hex").slice(0, 40)}`;
  }

  /** Retries what fails for a transient reason (a 5xx, a timeout, a refused connection) a few times. */
  private async retrying<T>(request: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await request();
      } catch (err) {
        const status = (err as { statusCode?: number })?.statusCode;
        const transient = status === undefined || status >= 500 || status === 429;
        if (!transient || attempt >= SEND_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
      }
    }
  }
}
