// Backfill: the read model rebuilt from the homeserver alone (spec items 4 and 10). Sites and
// rooms are found on the homeserver (discovery.ts), then each room's timeline is read forward with
// /messages from its creation, a page at a time, and every page goes through the projector the
// appservice push uses, so nothing is projected twice or differently. After each page the
// room's pagination token is recorded (backfill-store.ts): a killed run resumes from there, and
// as applying is keyed by event id, a page applied again changes nothing. What Matrix does not
// hold is not rebuilt: queued submissions (item 4), and ownership proofs (item 10: a rebuilt site
// accepts writes once it verifies an origin again; a [sites] site keeps its configuration).
import type { Db } from "../../db/client.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import { Projector } from "../../projection/projector.ts";
import type { RoomEvent } from "../../projection/room-event.ts";
import type { Sites } from "../sites/sites.ts";
import { VisitorStore } from "../visitors/visitor-store.ts";
import { proofOf } from "../../projection/message-content.ts";
import type { MatrixNames } from "../../matrix/names.ts";
import { homeserverFailure } from "../../matrix/errors.ts";
import { BackfillStore } from "./backfill-store.ts";
import type { SitePlan } from "./discovery.ts";

/** One room read, as progress reports it. */
export interface RoomReport {
  siteId: string;
  /** null for the site's Space. */
  pageSlug: string | null;
  roomId: string;
  role: "space" | "active" | "superseded";
  /** Events read from it in this run, and in all runs. */
  read: number;
  total: number;
  /** Why it could not be read to its end (the next run resumes it). */
  error: string | null;
}

export interface BackfillProgressListener {
  /** Discovery is done: this many rooms will be read. */
  planned(rooms: number): void;
  /** A page of a room's timeline was applied. */
  page(room: Pick<RoomReport, "siteId" | "pageSlug" | "roomId">, read: number): void;
  /** A room was read to its end, or failed. */
  room(report: RoomReport, done: number, planned: number): void;
}

export interface BackfillSummary {
  sites: number;
  rooms: number;
  events: number;
  failed: RoomReport[];
}

export class Backfill {
  private readonly store: BackfillStore;
  private readonly projector: Projector;
  private readonly visitors: VisitorStore;

  constructor(
    db: Db,
    private readonly hs: Homeserver,
    private readonly sites: Sites,
    /** Events per /messages request: what the run holds in memory at once. */
    private readonly pageSize: number,
  ) {
    this.store = new BackfillStore(db);
    this.visitors = new VisitorStore(db);
    // Replaying history announces nothing (no live events, no cache changes).
    this.projector = new Projector(db, hs.names, async () => {}, false);
  }

  /** Records the sites and rooms of `plans`, then reads every room; a room that fails is reported and the rest go on. */
  async run(plans: SitePlan[], listener: BackfillProgressListener): Promise<BackfillSummary> {
    await this.sites.syncDeclarations();
    const rooms = plans.flatMap((site) => [
      { siteId: site.siteId, pageSlug: null, roomId: site.spaceRoomId, role: "space" as const },
      ...site.pages.flatMap((page) =>
        page.rooms.map((room, i) => ({
          siteId: site.siteId,
          pageSlug: page.pageSlug,
          roomId: room.roomId,
          role: i === page.rooms.length - 1 ? ("active" as const) : ("superseded" as const),
        })),
      ),
    ]);
    listener.planned(rooms.length);
    for (const site of plans) {
      await this.store.recordSite(site.siteId, site.spaceRoomId);
      for (const page of site.pages) await this.store.recordPageRooms(site.siteId, page.pageSlug, page.rooms);
    }
    const summary: BackfillSummary = { sites: plans.length, rooms: rooms.length, events: 0, failed: [] };
    for (const [i, room] of rooms.entries()) {
      const report = await this.readRoom(room, listener);
      summary.events += report.read;
      if (report.error !== null) summary.failed.push(report);
      listener.room(report, i + 1, rooms.length);
    }
    return summary;
  }

  /** Reads a room's timeline from where the last run stopped to its end. */
  private async readRoom(
    room: Omit<RoomReport, "read" | "total" | "error">,
    listener: BackfillProgressListener,
  ): Promise<RoomReport> {
    const progress = await this.store.progress(room.roomId);
    let from = progress.nextToken;
    let read = 0;
    try {
      for (;;) {
        const page = await this.hs.messagesForward(room.roomId, from, this.pageSize);
        if (page.chunk.length === 0) break;
        // /messages may leave out room_id (it names the room already); the projection keys on it.
        const events = page.chunk.map((event) => ({ ...event, room_id: room.roomId }) as RoomEvent);
        // Visitors first: a comment names its author's key (and a redacted one has no proof left).
        for (const visitor of visitorsOf(events, room.siteId, this.hs.names))
          await this.visitors.recordUser(visitor.userId, room.siteId, visitor.publicKey);
        await this.projector.applyTransaction(events);
        read += events.length;
        listener.page(room, read);
        // Without an end token the next run reads this last page again, which changes nothing.
        await this.store.advance(
          room.roomId,
          { siteId: room.siteId, pageSlug: room.pageSlug },
          page.end ?? from,
          events.at(-1)!.event_id,
          events.length,
        );
        if (page.end === null) break;
        from = page.end;
      }
      await this.store.nameVisitors(room.siteId, room.roomId);
      return { ...room, read, total: progress.events + read, error: null };
    } catch (err) {
      // The homeserver failing one room leaves the others to read; anything else (the database) ends the run.
      if (homeserverFailure(err) === null) throw err;
      return { ...room, read, total: progress.events + read, error: (err as Error)?.message ?? String(err) };
    }
  }
}

/**
 * The visitors' virtual users these events show (the write side records them on first write):
 * a proof block whose key derives the sender's id, which only this service can send as.
 */
function visitorsOf(
  events: RoomEvent[],
  siteId: string,
  names: MatrixNames,
): Array<{ userId: string; publicKey: string }> {
  const found = new Map<string, string>();
  for (const event of events) {
    const proof = typeof event.content === "object" && event.content !== null ? proofOf(event.content) : null;
    if (proof && names.visitorUserId(siteId, Buffer.from(proof.public_key, "base64url")) === event.sender)
      found.set(event.sender, proof.public_key);
  }
  return [...found].map(([userId, publicKey]) => ({ userId, publicKey }));
}
