// The AS bot in real DMs on the real test Synapse: regular Matrix accounts create rooms with the
// bot through the client-server API with their own tokens, send claims and commands, and read
// the bot's answers; power levels are read back from Synapse.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { MatrixNames } from "../../src/matrix/names.ts";
import * as answers from "../../src/features/governance/bot/answers.ts";
import type { RoleKind } from "../../src/features/governance/standing.ts";
import {
  eventually,
  freshDatabase,
  PROVIDERS,
  serviceFor,
  startTestService,
  uniqueSiteId,
  type TestService,
} from "../support/harness.ts";
import { levelIn, matrixRequest, registerMatrixUser, resolveAlias } from "../support/matrix.ts";
import { TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { Visitor } from "../support/visitor.ts";

const BOT = new MatrixNames(TEST_NAMESPACE_PREFIX, TEST_SERVER_NAME).botUserId;
const enc = encodeURIComponent;

/** A regular Matrix account talking to the bot with its own access token. */
class Account {
  private txn = 0;
  private constructor(
    readonly userId: string,
    private readonly token: string,
  ) {}

  static async register(prefix: string): Promise<Account> {
    const { userId, token } = await registerMatrixUser(`${prefix}${randomBytes(4).toString("hex")}`);
    return new Account(userId, token);
  }

  /** A room with the bot as a Matrix client makes a DM: is_direct, trusted_private_chat; `others` are invited too. */
  async roomWithBot(options: { encrypted?: boolean; others?: Account[] } = {}): Promise<string> {
    const { room_id } = await matrixRequest<{ room_id: string }>("POST", "/_matrix/client/v3/createRoom", this.token, {
      is_direct: true,
      preset: "trusted_private_chat",
      invite: [BOT, ...(options.others ?? []).map((o) => o.userId)],
      initial_state: options.encrypted
        ? [{ type: "m.room.encryption", state_key: "", content: { algorithm: "m.megolm.v1.aes-sha2" } }]
        : [],
    });
    return room_id;
  }

  async join(roomId: string): Promise<void> {
    await matrixRequest("POST", `/_matrix/client/v3/join/${enc(roomId)}`, this.token, {});
  }

  async leave(roomId: string): Promise<void> {
    await matrixRequest("POST", `/_matrix/client/v3/rooms/${enc(roomId)}/leave`, this.token, {});
  }

  async send(roomId: string, type: string, content: Record<string, unknown>): Promise<void> {
    await matrixRequest(
      "PUT",
      `/_matrix/client/v3/rooms/${enc(roomId)}/send/${type}/t${++this.txn}-${Date.now()}`,
      this.token,
      content,
    );
  }

  say(roomId: string, body: string): Promise<void> {
    return this.send(roomId, "m.room.message", { msgtype: "m.text", body });
  }

  /** The bot's notices in a room, oldest first, as this account reads them. */
  async notices(roomId: string): Promise<string[]> {
    const filter = enc(JSON.stringify({ types: ["m.room.message"], senders: [BOT] }));
    const page = await matrixRequest<{ chunk: Array<{ content: { msgtype?: string; body?: string } }> }>(
      "GET",
      `/_matrix/client/v3/rooms/${enc(roomId)}/messages?dir=b&limit=1000&filter=${filter}`,
      this.token,
    );
    return page.chunk
      .reverse()
      .filter((e) => e.content.msgtype === "m.notice")
      .map((e) => e.content.body ?? "");
  }

  /** Waits for the bot's `n`th notice (1-based) in the room. */
  async notice(roomId: string, n: number): Promise<string> {
    return eventually(async () => (await this.notices(roomId))[n - 1], 30_000, `notice ${n} of the bot in ${roomId}`);
  }

  /** Says `body` and returns the bot's answer (its next notice). */
  async ask(roomId: string, body: string): Promise<string> {
    const seen = (await this.notices(roomId)).length;
    await this.say(roomId, body);
    return this.notice(roomId, seen + 1);
  }

  /** The bot's membership of the room, as this account sees it. */
  async botMembership(roomId: string): Promise<string> {
    return (
      await matrixRequest<{ membership: string }>(
        "GET",
        `/_matrix/client/v3/rooms/${enc(roomId)}/state/m.room.member/${enc(BOT)}`,
        this.token,
      )
    ).membership;
  }

  /** A DM the bot has joined and greeted in. */
  async dm(): Promise<string> {
    const roomId = await this.roomWithBot();
    assert.equal(await this.notice(roomId, 1), answers.GREETING);
    return roomId;
  }
}

/** A site registered through the API (a generated id: writes from any origin); returns its id and claim token. */
async function registeredSite(service: TestService): Promise<{ siteId: string; claimToken: string }> {
  // fetch reuses connections kept alive to an instance stopped earlier on this port; each fails
  // once ("other side closed"), so spend them first (as retirement.test.ts does).
  for (
    let i = 0;
    i < 5 &&
    !(await fetch(`${service.url}/health`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  );
  const registered = await fetch(`${service.url}/api/v1/sites`, { method: "POST" });
  assert.equal(registered.status, 201);
  const { site_id: siteId, claim_token: claimToken } = (await registered.json()) as {
    site_id: string;
    claim_token: string;
  };
  return { siteId, claimToken };
}

/** A site with a Space and one page room (a visitor's comment provisions both). */
async function siteWithRoom(service: TestService, page: string) {
  const { siteId, claimToken } = await registeredSite(service);
  const visitor = new Visitor(service.url, "https://anywhere.example");
  const posted = await visitor.post(
    `/api/v1/sites/${siteId}/pages/${page}/comments`,
    await visitor.commentBody(siteId, page, "hello"),
    { "idempotency-key": "first" },
  );
  assert.equal(posted.status, 202, await posted.text());
  const roomId = await eventually(
    async () => (await service.services.db.room.findFirst({ where: { siteId, pageSlug: page } }))?.roomId,
    30_000,
    "the page room",
  );
  return {
    siteId,
    claimToken,
    roomId,
    spaceId: await resolveAlias(`#${TEST_NAMESPACE_PREFIX}${siteId}:${TEST_SERVER_NAME}`),
  };
}

/** A pending claim through the claim routes (the owner's claim token); returns its verify token. */
async function claimVia(
  service: TestService,
  site: { siteId: string; claimToken: string },
  role: RoleKind,
  userId: string,
  pageSlug: string | null = null,
): Promise<string> {
  const scope = pageSlug === null ? "" : `/pages/${pageSlug}`;
  const res = await fetch(`${service.url}/api/v1/sites/${site.siteId}${scope}/${role}-claims`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-claim-token": site.claimToken },
    body: JSON.stringify({ user_id: userId }),
  });
  const body = (await res.json()) as { verify_token: string };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.verify_token;
}

for (const provider of PROVIDERS) {
  describe(`role claims through a bot DM on ${provider}`, () => {
    const logs: string[] = [];
    const running = serviceFor(provider, { overrides: { "rate_limit.bot_message": 1000 }, log: (m) => logs.push(m) });
    let service: TestService;
    let site: Awaited<ReturnType<typeof siteWithRoom>>;
    let owner: Account;
    let ownerDm: string;
    const page = "first-post";

    const claim = (role: RoleKind, userId: string, pageSlug: string | null = null) =>
      claimVia(service, site, role, userId, pageSlug);
    const pendingOf = async (userId: string) =>
      (await service.services.governance.pendingClaims(site.siteId)).filter((c) => c.userId === userId);

    before(async () => {
      service = running.service;
      site = await siteWithRoom(service, page);
      owner = await Account.register("owner");
    });

    test("a site admin claim sent in the DM applies level 100 in the Space and the page room; DM events stay out of the event store", async () => {
      const token = await claim("admin", owner.userId);
      ownerDm = await owner.dm();
      const answer = await owner.ask(ownerDm, `service-claim:${token}`);
      assert.equal(answer, `Claim applied: you are now site admin of site "${site.siteId}" (power level 100).`);
      assert.equal(
        await eventually(
          async () => (await levelIn(site.spaceId, owner.userId)) === 100,
          30_000,
          "admin level in the Space",
        ),
        true,
      );
      assert.equal(
        await eventually(
          async () => (await levelIn(site.roomId, owner.userId)) === 100,
          30_000,
          "admin level in the room",
        ),
        true,
      );
      assert.equal(
        await service.services.db.matrixEvent.count({ where: { roomId: ownerDm } }),
        0,
        "no DM event in the page event store",
      );
      assert.equal(
        await eventually(async () => (await service.services.db.botInboxEvent.count()) === 0, 10_000, "an empty inbox"),
        true,
      );
    });

    test("a site manager claim applies level 75 in the Space and the room", async () => {
      const manager = await Account.register("manager");
      const token = await claim("manager", manager.userId);
      const answer = await manager.ask(await manager.dm(), `service-claim:${token}`);
      assert.equal(answer, `Claim applied: you are now site manager of site "${site.siteId}" (power level 75).`);
      assert.equal(
        await eventually(
          async () => (await levelIn(site.spaceId, manager.userId)) === 75,
          30_000,
          "manager level in the Space",
        ),
        true,
      );
      assert.equal(
        await eventually(
          async () => (await levelIn(site.roomId, manager.userId)) === 75,
          30_000,
          "manager level in the room",
        ),
        true,
      );
    });

    test("a moderator claim applies level 50 in that page's room only", async () => {
      const moderator = await Account.register("moderator");
      const token = await claim("moderator", moderator.userId, page);
      const answer = await moderator.ask(await moderator.dm(), `service-claim:${token}`);
      assert.equal(
        answer,
        `Claim applied: you are now moderator of page "${page}" on site "${site.siteId}" (power level 50).`,
      );
      assert.equal(
        await eventually(
          async () => (await levelIn(site.roomId, moderator.userId)) === 50,
          30_000,
          "moderator level in the room",
        ),
        true,
      );
      assert.equal(await levelIn(site.spaceId, moderator.userId), undefined, "nothing in the Space");
    });

    test("wrong, reused, expired and someone else's tokens are refused with an answer", async () => {
      assert.match(
        await owner.ask(ownerDm, `service-claim:${randomBytes(24).toString("base64url")}`),
        /^Claim refused\. This claim token is not valid/,
      );
      const token = await claim("manager", owner.userId);
      await service.services.db.roleClaim.updateMany({
        where: { userId: owner.userId, role: "manager", status: "pending" },
        data: { expiresAt: new Date(Date.now() - 1000) },
      });
      assert.equal(
        await owner.ask(ownerDm, `service-claim:${token}`),
        "Claim refused. This claim token has expired. Ask for a new claim.",
      );
      const other = await Account.register("other");
      const theirs = await claim("manager", other.userId);
      assert.equal(
        await owner.ask(ownerDm, `service-claim:${theirs}`),
        "Claim refused. This claim token was issued for another Matrix account.",
      );
      assert.equal((await pendingOf(other.userId)).length, 1, "their claim is still pending");
      const fresh = await claim("manager", owner.userId);
      assert.match(await owner.ask(ownerDm, `service-claim:${fresh}`), /^Claim applied: you are now site manager/);
      assert.equal(
        await owner.ask(ownerDm, `service-claim:${fresh}`),
        "Claim refused. This claim token has already been used.",
      );
    });
  });
}

describe("what the bot will not do", () => {
  const running = serviceFor("sqlite", { overrides: { "rate_limit.bot_message": 1000 } });
  let service: TestService;
  let site: Awaited<ReturnType<typeof siteWithRoom>>;
  before(async () => {
    service = running.service;
    site = await siteWithRoom(service, "p");
  });
  const claim = (role: RoleKind, userId: string) => claimVia(service, site, role, userId);
  const stillPending = async (userId: string) =>
    (await service.services.governance.pendingClaims(site.siteId)).some((c) => c.userId === userId);

  test("a stranger's invite is declined, and its room never reaches the event store", async () => {
    const stranger = await Account.register("stranger");
    const roomId = await stranger.roomWithBot();
    assert.equal(
      await eventually(async () => (await stranger.botMembership(roomId)) === "leave", 30_000, "the invite declined"),
      true,
    );
    assert.equal((await service.services.db.botRoom.findUnique({ where: { roomId } }))?.state, "declined");
    assert.equal(await service.services.db.matrixEvent.count({ where: { roomId } }), 0);
  });

  test("in an encrypted DM the bot only says it cannot read encrypted messages", async () => {
    const user = await Account.register("crypt");
    const token = await claim("manager", user.userId);
    const roomId = await user.roomWithBot({ encrypted: true });
    assert.equal(await user.notice(roomId, 1), answers.ENCRYPTED);
    await user.send(roomId, "m.room.encrypted", {
      algorithm: "m.megolm.v1.aes-sha2",
      ciphertext: "AwgAEn...",
      sender_key: "k",
      session_id: "s",
      device_id: "D",
    });
    assert.equal(await user.notice(roomId, 2), answers.ENCRYPTED);
    // A plain message in an encrypted room (a client may send one) is not acted on either.
    assert.equal(await user.ask(roomId, `service-claim:${token}`), answers.ENCRYPTED);
    assert.equal(await stillPending(user.userId), true);
  });

  test("when its user leaves the DM, so does the bot", async () => {
    const user = await Account.register("leaver");
    await claim("manager", user.userId);
    const roomId = await user.dm();
    await user.leave(roomId);
    const botMembership = async () =>
      (
        await matrixRequest<{ chunk: Array<{ state_key: string; content: { membership: string } }> }>(
          "GET",
          `/_matrix/client/v3/rooms/${enc(roomId)}/members`,
        )
      ).chunk.find((e) => e.state_key === BOT)?.content.membership;
    assert.equal(await eventually(async () => (await botMembership()) === "leave", 30_000, "the bot gone"), true);
    assert.equal((await service.services.db.botRoom.findUnique({ where: { roomId } }))?.state, "left");
  });

  test("a claim token sent in a room with a third member is not redeemed", async () => {
    const user = await Account.register("group");
    const friend = await Account.register("friend");
    const token = await claim("manager", user.userId);
    const roomId = await user.roomWithBot({ others: [friend] });
    await friend.join(roomId);
    assert.equal(await user.notice(roomId, 1), answers.GROUP_ONLY);
    assert.equal(await user.ask(roomId, `service-claim:${token}`), answers.GROUP_ONLY);
    assert.equal(await stillPending(user.userId), true);
    assert.equal(await service.services.db.matrixEvent.count({ where: { roomId } }), 0);
  });
});

describe("ownership transfer and commands through the DM", () => {
  const logs: string[] = [];
  const running = serviceFor("sqlite", { overrides: { "rate_limit.bot_message": 1000 }, log: (m) => logs.push(m) });
  let service: TestService;
  let site: Awaited<ReturnType<typeof siteWithRoom>>;
  const page = "news";
  before(async () => {
    service = running.service;
    site = await siteWithRoom(service, page);
  });

  /** Makes the account hold `role` through its DM; returns that DM. */
  async function appoint(account: Account, role: RoleKind, pageSlug: string | null = null): Promise<string> {
    const token = await claimVia(service, site, role, account.userId, pageSlug);
    const dm = await account.dm();
    assert.match(await account.ask(dm, `service-claim:${token}`), /^Claim applied/);
    return dm;
  }

  test("the new claim token is delivered in the DM only: it works on a claim route, the old one is refused", async () => {
    const seller = await Account.register("seller");
    await appoint(seller, "admin");
    const buyer = await Account.register("buyer");
    const res = await fetch(`${service.url}/api/v1/sites/${site.siteId}/ownership-transfers`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-claim-token": site.claimToken },
      body: JSON.stringify({ user_id: buyer.userId }),
    });
    const transfer = (await res.json()) as { verify_token: string };
    assert.equal(res.status, 200, JSON.stringify(transfer));

    const answer = await buyer.ask(await buyer.dm(), `service-claim:${transfer.verify_token}`);
    const lines = answer.split("\n");
    assert.equal(lines[0], `Claim applied: you are now site admin of site "${site.siteId}" (power level 100).`);
    assert.match(lines[1]!, /Ownership transfer of site ".*" complete/);
    const newToken = lines.at(-1)!;
    assert.match(newToken, /^[A-Za-z0-9_-]{32,}$/);

    const claimWith = (token: string) =>
      fetch(`${service.url}/api/v1/sites/${site.siteId}/manager-claims`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-claim-token": token },
        body: JSON.stringify({ user_id: seller.userId }),
      });
    assert.equal((await claimWith(site.claimToken)).status, 403, "the old claim token is refused");
    assert.equal((await claimWith(newToken)).status, 200, "the new claim token works");

    // The admin roster was reset to the buyer.
    assert.equal(
      await eventually(
        async () => (await levelIn(site.spaceId, seller.userId)) === undefined,
        30_000,
        "the seller's level removed",
      ),
      true,
    );
    assert.equal(await levelIn(site.spaceId, buyer.userId), 100);
    // Never logged, never stored.
    assert.ok(!logs.some((line) => line.includes(newToken)), "the new claim token is in the log");
    assert.equal(await service.services.db.matrixEvent.count({ where: { json: { contains: newToken } } }), 0);
    assert.equal(await service.services.db.botInboxEvent.count({ where: { json: { contains: newToken } } }), 0);
    site = { ...site, claimToken: newToken };
  });

  test("help, roles, status and pending; another site's data is never shown", async () => {
    const admin = await Account.register("cmdadmin");
    const dm = await appoint(admin, "admin");
    const waiting = await Account.register("waiting");
    await claimVia(service, site, "manager", waiting.userId);

    assert.equal(await admin.ask(dm, "!service help"), answers.HELP);
    assert.equal(
      await admin.ask(dm, "!service roles"),
      `Your roles:\n  site admin of site "${site.siteId}" (power level 100)`,
    );
    assert.match(
      await admin.ask(dm, `!service status ${site.siteId}`),
      new RegExp(`^Site "${site.siteId}": active, 1 page with a room\\.\\nOrigins allowed to write:\\n  \\(none\\)$`),
    );
    const pending = await admin.ask(dm, `!service pending ${site.siteId}`);
    assert.match(pending, new RegExp(`^Pending claims on site "${site.siteId}":`));
    assert.ok(pending.includes(`${waiting.userId}: site manager of site "${site.siteId}", expires `), pending);
    assert.ok(!/[A-Za-z0-9_-]{40,}/.test(pending), "no verify token shown");

    // Someone else's site and a site that does not exist get the same answer.
    const other = await siteWithRoom(service, "elsewhere");
    const missing = uniqueSiteId("missing");
    assert.equal(await admin.ask(dm, `!service status ${other.siteId}`), answers.notYours(other.siteId));
    assert.equal(await admin.ask(dm, `!service status ${missing}`), answers.notYours(missing));
    assert.equal(await admin.ask(dm, `!service pending ${other.siteId}`), answers.notYours(other.siteId));
    assert.equal(await admin.ask(dm, "!service frobnicate"), answers.UNKNOWN_COMMAND);
    assert.equal(await admin.ask(dm, "hello?"), answers.UNKNOWN_COMMAND);

    const moderator = await Account.register("cmdmod");
    const modDm = await appoint(moderator, "moderator", page);
    assert.equal(await moderator.ask(modDm, `!service pending ${site.siteId}`), answers.needsManager(site.siteId));
    assert.match(await moderator.ask(modDm, `!service status ${site.siteId}`), /^Site ".*": active/);
    assert.equal(
      await waiting.dm().then((room) => waiting.ask(room, "!service roles")),
      "You hold no role on any site.",
    );
  });
});

describe("the bot's per-user message budget", () => {
  const running = serviceFor("sqlite", { overrides: { "rate_limit.bot_message": 3 } });
  test("past the budget one notice, then silence", async () => {
    const service = running.service;
    const site = await siteWithRoom(service, "p");
    const chatty = await Account.register("chatty");
    await claimVia(service, site, "manager", chatty.userId);
    const dm = await chatty.dm(); // the invite counts
    assert.equal(await chatty.ask(dm, "!service help"), answers.HELP);
    assert.equal(await chatty.ask(dm, "!service help"), answers.HELP);
    assert.equal(await chatty.ask(dm, "!service help"), answers.RATE_LIMITED);
    await chatty.say(dm, "!service help");
    // The bot handles events in arrival order: once it has greeted a later DM, the message above was handled.
    const marker = await Account.register("marker");
    await claimVia(service, site, "manager", marker.userId);
    await marker.dm();
    assert.deepEqual(await chatty.notices(dm), [answers.GREETING, answers.HELP, answers.HELP, answers.RATE_LIMITED]);
  });
});

test("an invite that arrived while no instance ran the bot is handled after a restart", async () => {
  const database = await freshDatabase("sqlite");
  // An API-only instance stores the bot's events but does not handle them.
  const apiOnly = await startTestService({ databaseUrl: database.url, worker: false });
  let roomId: string;
  const user = await Account.register("later");
  try {
    await claimVia(apiOnly, await registeredSite(apiOnly), "manager", user.userId);
    roomId = await user.roomWithBot();
    await eventually(
      async () => (await apiOnly.services.db.botInboxEvent.count({ where: { roomId } })) === 1,
      30_000,
      "the invite in the inbox",
    );
    assert.equal(await user.botMembership(roomId), "invite");
  } finally {
    await apiOnly.stop();
  }
  const restarted = await startTestService({ databaseUrl: database.url });
  try {
    assert.equal(await user.notice(roomId, 1), answers.GREETING);
    assert.equal(await user.botMembership(roomId), "join");
    assert.equal(
      await eventually(async () => (await restarted.services.db.botInboxEvent.count()) === 0, 10_000, "an empty inbox"),
      true,
    );
  } finally {
    await restarted.stop();
    await database.drop();
  }
});
