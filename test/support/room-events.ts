// Room events as the homeserver pushes them to the appservice, for driving the projection
// directly. Contents come from the service's own builders where it sends such events.
import { randomBytes } from "node:crypto";
import { redactionContent } from "../../src/matrix/events.ts";
import { textMessageContent } from "../../src/features/comments/operations/post-comment.ts";
import { editContent } from "../../src/features/comments/operations/edit-comment.ts";
import { reactionContent } from "../../src/features/comments/operations/react.ts";
import { pollStartContent } from "../../src/features/comments/operations/create-poll.ts";
import { pollResponseContent } from "../../src/features/comments/operations/vote.ts";
import type { ProofBlock } from "../../src/matrix/events.ts";
import type { RoomEvent } from "../../src/projection/room-event.ts";

export const T0 = 1_795_000_000_000;

/** A proof block as the service writes it (the projection only reads its submission id). */
export const proofBlock = (submissionId = "sub-1"): ProofBlock => ({
  public_key: "pk",
  signature: "sig",
  challenge: "ch",
  content: "",
  submission_id: submissionId,
});

/** One event with fixed ids and timestamp, for tests of how a single event is read. */
export const oneEvent = (
  type: string,
  content: Record<string, unknown> = {},
  extra: Partial<RoomEvent> = {},
): RoomEvent => ({
  event_id: "$e:localhost",
  room_id: "!r:localhost",
  sender: "@alice:localhost",
  type,
  origin_server_ts: 1_763_726_400_000,
  content,
  ...extra,
});

/**
 * Events of one room with unique ids and increasing timestamps (one second apart, in the order
 * they are built), so a test can deliver them in any other order.
 */
export function roomEvents(roomId: string) {
  const tag = randomBytes(4).toString("hex");
  let n = 0;
  const next = (
    sender: string,
    type: string,
    content: Record<string, unknown>,
    extra: Partial<RoomEvent> = {},
  ): RoomEvent => {
    n++;
    return {
      event_id: `$${tag}-${n}`,
      room_id: roomId,
      sender,
      type,
      origin_server_ts: T0 + n * 1000,
      content,
      ...extra,
    };
  };
  return {
    roomId,
    text: (sender: string, body: string, options: { replyTo?: string; threadRoot?: string; proof?: ProofBlock } = {}) =>
      next(
        sender,
        "m.room.message",
        textMessageContent(
          body,
          null,
          options.replyTo ?? null,
          options.threadRoot ?? null,
          options.proof ?? proofBlock(),
        ),
      ),
    edit: (sender: string, target: string, body: string) =>
      next(sender, "m.room.message", editContent(target, body, null, proofBlock())),
    reaction: (sender: string, target: string, key: string) =>
      next(sender, "m.reaction", reactionContent(target, key, proofBlock())),
    poll: (sender: string, question: string, options: string[]) =>
      next(sender, "m.room.message", pollStartContent(question, options, 1, null, null, proofBlock())),
    vote: (sender: string, poll: string, optionId: string) =>
      next(sender, "m.poll.response", pollResponseContent(poll, optionId, proofBlock())),
    /** Room v11+ shape (`redacts` in content); `legacy` puts it at the top level as older rooms do. */
    redaction: (sender: string, target: string, options: { submissionId?: string; legacy?: boolean } = {}) =>
      options.legacy
        ? next(sender, "m.room.redaction", { reason: "gone" }, { redacts: target })
        : next(sender, "m.room.redaction", {
            ...(options.submissionId ? redactionContent(proofBlock(options.submissionId)) : {}),
            redacts: target,
          }),
    member: (userId: string, displayname: string | null, membership = "join") =>
      next(
        userId,
        "m.room.member",
        { membership, ...(displayname !== null ? { displayname } : {}) },
        { state_key: userId },
      ),
    powerLevels: (sender: string, users: Record<string, number>, redact = 50) =>
      next(sender, "m.room.power_levels", { users, users_default: 0, redact }, { state_key: "" }),
    name: (sender: string, name: string) => next(sender, "m.room.name", { name }, { state_key: "" }),
    raw: next,
  };
}

const [alice, bob, carol, moderator] = ["@alice:localhost", "@bob:localhost", "@carol:localhost", "@mod:localhost"];

/**
 * A page's history with every kind of derived state: edits (one by someone else), reactions
 * (one by a visitor), votes (a changed one), redactions by the sender, by a moderator in the old
 * shape and by someone without power, and an edit after a delete.
 */
export function pageHistory(roomId: string, botUserId: string, visitorUserId: string) {
  const room = roomEvents(roomId);
  const power = room.powerLevels(botUserId, { [botUserId]: 100, [moderator]: 50 });
  const members = [
    room.member(alice, "Alice"),
    room.member(bob, "Bob"),
    room.member(carol, "Carol"),
    room.member(moderator, "Mod"),
  ];
  const c1 = room.text(alice, "first");
  const c2 = room.text(bob, "second", { replyTo: c1.event_id });
  const c3 = room.text(carol, "third");
  const poll = room.poll(alice, "Tea or coffee?", ["Tea", "Coffee"]);
  const r3 = room.reaction(bob, c1.event_id, "🎉");
  const v4 = room.vote(carol, poll.event_id, "1");
  const firstEdit = room.edit(alice, c1.event_id, "first, edited");
  const latestEdit = room.edit(alice, c1.event_id, "first, edited twice");
  const events: RoomEvent[] = [
    power,
    ...members,
    c1,
    c2,
    c3,
    poll,
    firstEdit,
    latestEdit,
    room.edit(bob, c1.event_id, "hijacked"),
    room.reaction(bob, c1.event_id, "👍"),
    room.reaction(visitorUserId, c1.event_id, "👍"),
    r3,
    room.reaction(carol, c2.event_id, "👀"),
    room.vote(bob, poll.event_id, "1"),
    room.vote(alice, poll.event_id, "0"),
    room.vote(bob, poll.event_id, "0"),
    v4,
    room.redaction(bob, r3.event_id),
    room.redaction(moderator, c2.event_id, { legacy: true }),
    room.edit(bob, c2.event_id, "edit after delete"),
    room.redaction(carol, c1.event_id),
    room.redaction(carol, v4.event_id),
  ];
  return { events, c1, c2, c3, poll, latestEdit };
}
