import { test } from "node:test";
import assert from "node:assert/strict";
import { parseRequest } from "../../src/features/governance/bot/commands.ts";
import { classifyRoom } from "../../src/features/governance/bot/room-kind.ts";
import { routeEvent } from "../../src/features/governance/bot/intake.ts";
import { redeemAnswer } from "../../src/features/governance/bot/answers.ts";
import type { RoomEvent } from "../../src/projection/room-event.ts";

test("a claim message carries its token; surrounding white space is ignored", () => {
  assert.deepEqual(parseRequest("service-claim:abc_DEF-123"), { kind: "claim", token: "abc_DEF-123" });
  assert.deepEqual(parseRequest("  service-claim: abc \n"), { kind: "claim", token: "abc" });
});

test("a claim message without a single token is not understood", () => {
  assert.deepEqual(parseRequest("service-claim:"), { kind: "unknown" });
  assert.deepEqual(parseRequest("service-claim:a b"), { kind: "unknown" });
  assert.deepEqual(parseRequest(`service-claim:${"x".repeat(257)}`), { kind: "unknown" });
});

test("!service commands, case-insensitive, with their arguments", () => {
  assert.deepEqual(parseRequest("!service help"), { kind: "help" });
  assert.deepEqual(parseRequest("!service"), { kind: "help" });
  assert.deepEqual(parseRequest("!Service ROLES"), { kind: "roles" });
  assert.deepEqual(parseRequest("!service status my-blog"), { kind: "status", siteId: "my-blog" });
  assert.deepEqual(parseRequest("!service  pending\tmy-blog "), { kind: "pending", siteId: "my-blog" });
});

test("unknown commands and wrong arguments are understood as unknown", () => {
  assert.deepEqual(parseRequest("!service frobnicate"), { kind: "unknown" });
  assert.deepEqual(parseRequest("!service status"), { kind: "unknown" });
  assert.deepEqual(parseRequest("!service status a b"), { kind: "unknown" });
  assert.deepEqual(parseRequest("!service roles please"), { kind: "unknown" });
});

test("ordinary chat is not addressed to the bot", () => {
  assert.equal(parseRequest("hello there"), null);
  assert.equal(parseRequest("!servicex help"), null);
  assert.equal(parseRequest("I got a service-claim:abc from my admin"), null);
  assert.equal(parseRequest(""), null);
});

const BOT = "@_service_bot:example";
const ALICE = "@alice:example";

test("a DM is an unencrypted room of exactly the bot and the sender", () => {
  assert.equal(classifyRoom({ encrypted: false, members: [BOT, ALICE], botUserId: BOT, sender: ALICE }), "dm");
  assert.equal(classifyRoom({ encrypted: false, members: [ALICE, BOT, ALICE], botUserId: BOT, sender: ALICE }), "dm");
});

test("a third member, joined or invited, makes a group room", () => {
  assert.equal(
    classifyRoom({ encrypted: false, members: [BOT, ALICE, "@bob:example"], botUserId: BOT, sender: ALICE }),
    "group",
  );
  // The sender is not (or no longer) a member: whatever the bot says there, someone else reads.
  assert.equal(
    classifyRoom({ encrypted: false, members: [BOT, "@bob:example"], botUserId: BOT, sender: ALICE }),
    "group",
  );
  assert.equal(classifyRoom({ encrypted: false, members: [ALICE], botUserId: BOT, sender: ALICE }), "group");
});

test("encryption wins over membership", () => {
  assert.equal(classifyRoom({ encrypted: true, members: [BOT, ALICE], botUserId: BOT, sender: ALICE }), "encrypted");
  assert.equal(
    classifyRoom({ encrypted: true, members: [BOT, ALICE, "@bob:example"], botUserId: BOT, sender: ALICE }),
    "encrypted",
  );
});

const event = (fields: Partial<RoomEvent>): RoomEvent => ({
  event_id: "$e",
  room_id: "!r",
  sender: ALICE,
  type: "m.room.message",
  origin_server_ts: 1,
  content: { msgtype: "m.text", body: "hi" },
  ...fields,
});

test("an invite of the bot goes to the bot, whatever the room", () => {
  const invite = event({ type: "m.room.member", state_key: BOT, content: { membership: "invite" } });
  assert.equal(routeEvent(invite, BOT, false), "handle");
  assert.equal(routeEvent(invite, BOT, true), "handle");
});

test("events of rooms that are not bot rooms go to the page projection", () => {
  assert.equal(routeEvent(event({}), BOT, false), "project");
  assert.equal(routeEvent(event({ sender: BOT }), BOT, false), "project");
  assert.equal(
    routeEvent(event({ type: "m.room.member", state_key: ALICE, content: { membership: "join" } }), BOT, false),
    "project",
  );
});

test("in a bot room: messages and memberships are handled, the bot's own events and everything else dropped", () => {
  assert.equal(routeEvent(event({}), BOT, true), "handle");
  assert.equal(routeEvent(event({ type: "m.room.encrypted", content: {} }), BOT, true), "handle");
  assert.equal(
    routeEvent(event({ type: "m.room.member", state_key: ALICE, content: { membership: "leave" } }), BOT, true),
    "handle",
  );
  // The bot's answers (one may carry a new claim token) are never stored.
  assert.equal(routeEvent(event({ sender: BOT, content: { msgtype: "m.notice", body: "token" } }), BOT, true), "drop");
  assert.equal(
    routeEvent(
      event({ type: "m.room.member", sender: BOT, state_key: BOT, content: { membership: "join" } }),
      BOT,
      true,
    ),
    "drop",
  );
  assert.equal(routeEvent(event({ type: "m.reaction", content: {} }), BOT, true), "drop");
  assert.equal(routeEvent(event({ type: "m.room.power_levels", state_key: "", content: {} }), BOT, true), "drop");
});

test("claim answers say why a claim was refused, and deliver a transfer's new claim token", () => {
  assert.match(redeemAnswer({ ok: false, reason: "expired" }), /refused.*expired/);
  assert.match(redeemAnswer({ ok: false, reason: "used" }), /refused.*already been used/);
  const applied = redeemAnswer({
    ok: true,
    siteId: "blog",
    role: "moderator",
    pageSlug: "p1",
    level: 50,
    newClaimToken: null,
  });
  assert.match(applied, /moderator of page "p1" on site "blog" \(power level 50\)/);
  assert.doesNotMatch(applied, /claim token/);
  const transfer = redeemAnswer({
    ok: true,
    siteId: "blog",
    role: "admin",
    pageSlug: null,
    level: 100,
    newClaimToken: "NEW-TOKEN",
  });
  assert.match(transfer, /site admin of site "blog"/);
  assert.match(transfer, /\nNEW-TOKEN$/);
});
