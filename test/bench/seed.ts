// Seeding the benchmark's big page fast. The page's room is real (provisioned on the local
// Synapse by a real first comment); the other comments are Matrix-shaped m.room.message events
// written straight into the event store (MatrixEvent, as the homeserver would push them) and
// projected with the projection's own pure derivation (deriveCommentState), in bulk inserts,
// then numbered (comment positions and page count) by the projection's repositionPage:
// a read sees exactly what the projection would have produced, without 10,000 transactions.
import { randomBytes } from "node:crypto";
import type { Db } from "../../src/db/client.ts";
import { deriveCommentState } from "../../src/projection/comment-state.ts";
import { eventRelation } from "../../src/projection/message-content.ts";
import type { RoomEvent } from "../../src/projection/room-event.ts";
import { repositionPage } from "../../src/projection/position-store.ts";
import { reactionSummaries, storedSummaries } from "../../src/projection/annotations.ts";

const CHUNK = 500;

export interface SeedTarget {
  roomId: string;
  siteId: string;
  pageSlug: string;
}

const eventId = () => `$${randomBytes(32).toString("base64url").slice(0, 43)}`;

function storedRow(event: RoomEvent) {
  const relation = eventRelation(event);
  return {
    eventId: event.event_id,
    roomId: event.room_id,
    type: event.type,
    sender: event.sender,
    stateKey: event.state_key ?? null,
    originServerTs: BigInt(event.origin_server_ts),
    relatesTo: relation?.relatesTo ?? null,
    relType: relation?.relType ?? null,
    json: JSON.stringify(event),
    status: "applied",
  };
}

/** Stores `count` comments from a few regular Matrix accounts, oldest first; returns their event ids in timeline order. */
export async function seedComments(db: Db, target: SeedTarget, count: number, serverName: string): Promise<string[]> {
  const authors = Array.from({ length: 8 }, (_, i) => ({
    userId: `@reader${i}:${serverName}`,
    displayName: `Reader ${i}`,
  }));
  const start = Date.now() - count * 1000;
  const ids: string[] = [];
  for (let offset = 0; offset < count; offset += CHUNK) {
    const events: RoomEvent[] = [];
    for (let i = offset; i < Math.min(count, offset + CHUNK); i++) {
      const author = authors[i % authors.length]!;
      events.push({
        event_id: eventId(),
        room_id: target.roomId,
        sender: author.userId,
        type: "m.room.message",
        origin_server_ts: start + i * 1000,
        content: { msgtype: "m.text", body: `Comment ${i}: ${"a thoughtful remark about this page, ".repeat(4)}` },
        unsigned: { age: 1000 },
      });
    }
    await db.matrixEvent.createMany({ data: events.map(storedRow) });
    await db.comment.createMany({
      data: events.map((event, j) => {
        const state = deriveCommentState({ original: event, related: [], redactions: [], takesEffect: () => false });
        return {
          eventId: event.event_id,
          roomId: target.roomId,
          siteId: target.siteId,
          pageSlug: target.pageSlug,
          sender: event.sender,
          authorType: "matrix",
          displayName: authors[(offset + j) % authors.length]!.displayName,
          status: state.status,
          content: JSON.stringify(state.content),
          originServerTs: BigInt(event.origin_server_ts),
        };
      }),
    });
    ids.push(...events.map((e) => e.event_id));
  }
  // Positions and count as the projection maintains them, numbered in one pass.
  await repositionPage(db, target.siteId, target.pageSlug);
  return ids;
}

/** m.reaction events by `sender` on each of `targets` (stored and projected as Reaction rows). */
export async function seedReactions(
  db: Db,
  target: SeedTarget,
  sender: string,
  targets: string[],
  key = "👍",
): Promise<void> {
  const now = Date.now();
  const events: RoomEvent[] = targets.map((relatesTo, i) => ({
    event_id: eventId(),
    room_id: target.roomId,
    sender,
    type: "m.reaction",
    origin_server_ts: now + i,
    content: { "m.relates_to": { rel_type: "m.annotation", event_id: relatesTo, key } },
  }));
  await db.matrixEvent.createMany({ data: events.map(storedRow) });
  const rows = events.map((e, i) => ({
    eventId: e.event_id,
    targetEventId: targets[i]!,
    roomId: target.roomId,
    sender,
    key,
    originServerTs: BigInt(e.origin_server_ts),
  }));
  await db.reaction.createMany({ data: rows });
  // The summary reads show, as the projection stores it with the Reaction rows (one reaction per target).
  for (const row of rows)
    await db.comment.update({
      where: { eventId: row.targetEventId },
      data: { reactionSummary: storedSummaries(reactionSummaries([row], null)) },
    });
}
