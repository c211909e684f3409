// Governance against the real test Synapse (SQLite and PostgreSQL): role claims over HTTP, redeemed through
// services.governance.redeem (the AS bot's DM handling calls it; test/integration/bot-dm.test.ts
// drives real DMs), power levels checked in the Space and rooms as Synapse has them,
// revocation, the last-admin warning, ownership transfer, rooms created later, levels edited by
// hand in Matrix, the convergence pass, every alternate form and operator mirror, and the codes.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import {
  eventually,
  PROVIDERS,
  serviceFor,
  TEST_ORIGIN,
  uniqueSiteId,
  type Provider,
  type TestService,
} from "../support/harness.ts";
import { getState, levelIn, matrixRequest, registerMatrixUser } from "../support/matrix.ts";
import { TEST_OPERATOR_TOKEN, TEST_SERVER_NAME, TEST_NAMESPACE_PREFIX } from "../support/environment.ts";
import { Visitor } from "../support/visitor.ts";
import { call, ok } from "../support/calls.ts";
import { statusAndCode } from "../support/problems.ts";
import { registerSite } from "../support/sites.ts";

const enc = encodeURIComponent;
const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
const claimHeader = (token: string) => ({ "x-service-claim-token": token });

/** The service the running describe block uses (each provider's block starts its own). */
let service: TestService;
let visitor: Visitor;

function useService(provider: Provider): void {
  const holder = serviceFor(provider);
  before(() => {
    service = holder.service;
    visitor = new Visitor(service.url, TEST_ORIGIN);
  });
}

/** A registered site writable from TEST_ORIGIN; its claim token. */
const siteToken = async (siteId: string) => (await registerSite(service, siteId, [TEST_ORIGIN])).claimToken;

/** Provisions the page's room (and the site's Space) the way a first comment does; the room id. */
async function pageRoom(siteId: string, pageSlug: string): Promise<string> {
  const res = await visitor.post(
    `/api/v1/sites/${siteId}/pages/${pageSlug}/comments`,
    await visitor.commentBody(siteId, pageSlug, "hello"),
    { "idempotency-key": randomUUID() },
  );
  assert.equal(res.status, 202);
  return eventually(
    async () => (await service.services.db.room.findFirst({ where: { siteId, pageSlug, state: "active" } }))?.roomId,
    30_000,
    `room of ${pageSlug}`,
  );
}

const spaceOf = async (siteId: string) =>
  (await service.services.db.site.findUniqueOrThrow({ where: { id: siteId } })).spaceRoomId!;

const newUser = async (name: string) => registerMatrixUser(`${name}${randomBytes(4).toString("hex")}`);

/** Claims a role over HTTP (owner route) and redeems it as the user; the redeem outcome. */
async function appoint(siteId: string, token: string, path: string, userId: string) {
  const claim = await ok(
    call(service, "POST", `/api/v1/sites/${siteId}${path}`, claimHeader(token), { user_id: userId }),
  );
  return service.services.governance.redeem(userId, claim.verify_token);
}

for (const provider of PROVIDERS)
  describe(`governance on ${provider}`, () => {
    useService(provider);

    describe("claims applied to power levels", () => {
      test("admin, manager and moderator claims: pending, then applied in the Space and rooms", async () => {
        const site = uniqueSiteId("gov");
        const token = await siteToken(site);
        const room = await pageRoom(site, "p1");
        const other = await pageRoom(site, "p2");
        const space = await spaceOf(site);
        const [alice, bob, carol] = await Promise.all([newUser("alice"), newUser("bob"), newUser("carol")]);

        const claim = await ok(
          call(service, "POST", `/api/v1/sites/${site}/admin-claims`, claimHeader(token), { user_id: alice.userId }),
        );
        assert.deepEqual(Object.keys(claim).sort(), ["expires_at", "level", "pending", "user_id", "verify_token"]);
        assert.equal(claim.pending, true);
        assert.equal(claim.user_id, alice.userId);
        assert.equal(claim.level, 100);
        assert.ok(Date.parse(claim.expires_at) > Date.now() + 23 * 3_600_000);
        assert.equal(await levelIn(space, alice.userId), undefined, "a claim is no role yet");
        assert.equal(await service.services.governance.hasStanding(alice.userId), true);
        assert.deepEqual(
          (await service.services.governance.pendingClaims(site)).map((c) => [c.userId, c.role, c.level]),
          [[alice.userId, "admin", 100]],
        );
        const stored = await service.services.db.roleClaim.findFirstOrThrow({ where: { userId: alice.userId } });
        assert.notEqual(stored.tokenHash, claim.verify_token);
        assert.ok(!JSON.stringify(stored).includes(claim.verify_token.split(".")[1]), "only the hash is stored");

        const outcome = await service.services.governance.redeem(alice.userId, claim.verify_token);
        assert.deepEqual(outcome, {
          ok: true,
          siteId: site,
          role: "admin",
          pageSlug: null,
          level: 100,
          newClaimToken: null,
        });
        for (const roomId of [space, room, other]) assert.equal(await levelIn(roomId, alice.userId), 100);
        assert.equal(
          (await getState(space, "m.room.member", alice.userId)).membership,
          "invite",
          "site roles are invited to the Space",
        );

        assert.equal((await appoint(site, token, "/manager-claims", bob.userId)).ok, true);
        for (const roomId of [space, room, other]) assert.equal(await levelIn(roomId, bob.userId), 75);

        const moderator = await appoint(site, token, "/pages/p1/moderator-claims", carol.userId);
        assert.deepEqual(moderator, {
          ok: true,
          siteId: site,
          role: "moderator",
          pageSlug: "p1",
          level: 50,
          newClaimToken: null,
        });
        assert.equal(await levelIn(room, carol.userId), 50);
        assert.equal(await levelIn(other, carol.userId), undefined, "a moderator only in the page's room");
        assert.equal(await levelIn(space, carol.userId), undefined);
        assert.equal((await getState(room, "m.room.member", carol.userId)).membership, "invite");

        assert.deepEqual(await service.services.governance.rolesOf(carol.userId), [
          { siteId: site, role: "moderator", pageSlug: "p1", level: 50 },
        ]);
        assert.deepEqual(await service.services.governance.pendingClaims(site), []);

        // The public rosters follow the projected power levels.
        await eventually(
          async () => {
            const roles = await ok(call(service, "GET", `/api/v1/sites/${site}/roles`, {}));
            return (
              roles.admins.some((e: any) => e.user_id === alice.userId) &&
              roles.managers.some((e: any) => e.user_id === bob.userId)
            );
          },
          20_000,
          "site roster",
        );
        await eventually(
          async () => {
            const roles = await ok(call(service, "GET", `/api/v1/sites/${site}/pages/p1/roles`, {}));
            return roles.moderators.some((e: any) => e.user_id === carol.userId && e.level === 50);
          },
          20_000,
          "page roster",
        );
      });

      test("a moderator claim needs no room yet: the page's room starts with the role", async () => {
        const site = uniqueSiteId("gov-late-mod");
        const token = await siteToken(site);
        const mod = await newUser("mod");
        assert.equal((await appoint(site, token, "/pages/later/moderator-claims", mod.userId)).ok, true);
        const room = await pageRoom(site, "later");
        assert.equal(await levelIn(room, mod.userId), 50);
        assert.equal(await levelIn(await spaceOf(site), mod.userId), undefined);
      });

      test("a manager is replicated into a room created after the role was applied", async () => {
        const site = uniqueSiteId("gov-later");
        const token = await siteToken(site);
        await pageRoom(site, "first");
        const manager = await newUser("manager");
        assert.equal((await appoint(site, token, "/manager-claims", manager.userId)).ok, true);
        const later = await pageRoom(site, "second");
        assert.equal(await levelIn(later, manager.userId), 75);
        // Recorded right after the room row, so the convergence pass neither writes nor fights it.
        const row = await eventually(
          () =>
            service.services.db.rolePowerLevel.findUnique({
              where: { roomId_userId: { roomId: later, userId: manager.userId } },
            }),
          10_000,
          "row recorded",
        );
        assert.deepEqual([row.level, row.written], [75, true], "recorded as written at creation");
      });
    });

    describe("verify tokens", () => {
      test("wrong user, unknown, tampered, expired, reused and cancelled tokens are refused", async () => {
        const site = uniqueSiteId("gov-tokens");
        const token = await siteToken(site);
        const [alice, mallory] = await Promise.all([newUser("alice"), newUser("mallory")]);
        const { governance } = service.services;
        const claim = await ok(
          call(service, "POST", `/api/v1/sites/${site}/manager-claims`, claimHeader(token), { user_id: alice.userId }),
        );

        assert.deepEqual(await governance.redeem(mallory.userId, claim.verify_token), {
          ok: false,
          reason: "wrong-user",
        });
        assert.equal(await governance.hasStanding(mallory.userId), false);
        assert.deepEqual(await governance.redeem(alice.userId, "not-a-token"), { ok: false, reason: "unknown-token" });
        const [id, secret] = claim.verify_token.split(".");
        const tampered = `${id}.${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
        assert.deepEqual(await governance.redeem(alice.userId, tampered), { ok: false, reason: "unknown-token" });
        assert.equal((await governance.redeem(alice.userId, claim.verify_token)).ok, true);
        assert.deepEqual(await governance.redeem(alice.userId, claim.verify_token), { ok: false, reason: "used" });

        const expiring = await ok(
          call(service, "POST", `/api/v1/sites/${site}/admin-claims`, claimHeader(token), { user_id: alice.userId }),
        );
        await service.services.db.roleClaim.updateMany({
          where: { userId: alice.userId, role: "admin" },
          data: { expiresAt: new Date(Date.now() - 1000) },
        });
        assert.deepEqual(await governance.redeem(alice.userId, expiring.verify_token), {
          ok: false,
          reason: "expired",
        });

        // A new claim replaces the pending one; a revocation cancels it.
        const first = await ok(
          call(service, "POST", `/api/v1/sites/${site}/pages/p/moderator-claims`, claimHeader(token), {
            user_id: alice.userId,
          }),
        );
        const second = await ok(
          call(service, "POST", `/api/v1/sites/${site}/pages/p/moderator-claims`, claimHeader(token), {
            user_id: alice.userId,
          }),
        );
        assert.deepEqual(await governance.redeem(alice.userId, first.verify_token), {
          ok: false,
          reason: "unknown-token",
        });
        await ok(
          call(service, "DELETE", `/api/v1/sites/${site}/pages/p/moderators/${enc(alice.userId)}`, claimHeader(token)),
        );
        assert.deepEqual(await governance.redeem(alice.userId, second.verify_token), {
          ok: false,
          reason: "unknown-token",
        });
        assert.deepEqual(await governance.rolesOf(alice.userId), [
          { siteId: site, role: "manager", pageSlug: null, level: 75 },
        ]);

        // A retiring site's claims and roles count for nothing.
        const retiring = uniqueSiteId("gov-tokens-retiring");
        const retiringToken = await siteToken(retiring);
        const late = await ok(
          call(service, "POST", `/api/v1/sites/${retiring}/admin-claims`, claimHeader(retiringToken), {
            user_id: mallory.userId,
          }),
        );
        assert.equal(await governance.hasStanding(mallory.userId), true);
        await service.services.db.site.update({ where: { id: retiring }, data: { status: "retiring" } });
        assert.equal(await governance.hasStanding(mallory.userId), false);
        assert.deepEqual(await governance.redeem(mallory.userId, late.verify_token), {
          ok: false,
          reason: "unknown-token",
        });
      });
    });

    describe("revocation", () => {
      test("applied roles are removed from every room; pending claims are cancelled; the last admin is warned about", async () => {
        const site = uniqueSiteId("gov-revoke");
        const token = await siteToken(site);
        const room = await pageRoom(site, "p");
        const space = await spaceOf(site);
        const [alice, bob, carol, dave] = await Promise.all([
          newUser("alice"),
          newUser("bob"),
          newUser("carol"),
          newUser("dave"),
        ]);
        await appoint(site, token, "/admin-claims", alice.userId);
        await appoint(site, token, "/admin-claims", dave.userId);
        await appoint(site, token, "/manager-claims", bob.userId);
        await appoint(site, token, "/pages/p/moderator-claims", carol.userId);
        // Alice also moderates the page: removing her admin role leaves her that level there.
        await appoint(site, token, "/pages/p/moderator-claims", alice.userId);

        const first = await ok(
          call(service, "DELETE", `/api/v1/sites/${site}/admins/${enc(dave.userId)}`, claimHeader(token)),
        );
        assert.deepEqual(
          first,
          { revoked: true, user_id: dave.userId, level: 100 },
          "another admin is left: no warnings",
        );
        const last = await ok(
          call(service, "DELETE", `/api/v1/sites/${site}/admins/${enc(alice.userId)}`, claimHeader(token)),
        );
        assert.equal(last.revoked, true);
        assert.deepEqual(
          last.warnings.map((w: any) => w.code),
          ["last-admin-removed"],
        );
        assert.equal(await levelIn(space, alice.userId), undefined);
        assert.equal(await levelIn(room, alice.userId), 50);
        assert.equal(await levelIn(space, dave.userId), undefined);
        assert.equal(await levelIn(room, dave.userId), undefined);

        assert.deepEqual(
          await ok(call(service, "DELETE", `/api/v1/sites/${site}/managers/${enc(bob.userId)}`, claimHeader(token))),
          { revoked: true, user_id: bob.userId, level: 75 },
        );
        assert.equal(await levelIn(space, bob.userId), undefined);
        assert.equal(await levelIn(room, bob.userId), undefined);
        assert.deepEqual(
          await ok(
            call(
              service,
              "DELETE",
              `/api/v1/sites/${site}/pages/p/moderators/${enc(carol.userId)}`,
              claimHeader(token),
            ),
          ),
          { revoked: true, user_id: carol.userId, level: 50 },
        );
        assert.equal(await levelIn(room, carol.userId), undefined);

        // A pending claim is cancelled; a user with neither is 404.
        await ok(
          call(service, "POST", `/api/v1/sites/${site}/manager-claims`, claimHeader(token), { user_id: carol.userId }),
        );
        assert.deepEqual(
          await ok(call(service, "DELETE", `/api/v1/sites/${site}/managers/${enc(carol.userId)}`, claimHeader(token))),
          { revoked: true, user_id: carol.userId, level: 75 },
        );
        assert.equal(
          await statusAndCode(
            call(service, "DELETE", `/api/v1/sites/${site}/managers/${enc(carol.userId)}`, claimHeader(token)),
          ),
          "404 role-not-found",
        );
        assert.equal(await service.services.governance.hasStanding(carol.userId), false);
        assert.equal(await service.services.governance.hasStanding(alice.userId), true, "still a moderator");
      });
    });

    describe("ownership transfer", () => {
      test("the target becomes the only admin, the claim token is rotated and the old one refused", async () => {
        const site = uniqueSiteId("gov-transfer");
        const token = await siteToken(site);
        const room = await pageRoom(site, "p");
        const space = await spaceOf(site);
        const [owner, handMade, target] = await Promise.all([newUser("owner"), newUser("hand"), newUser("target")]);
        await appoint(site, token, "/admin-claims", owner.userId);
        // The owner makes another admin by hand in Matrix (joined to the Space first).
        await matrixRequest("POST", `/_matrix/client/v3/join/${enc(space)}`, owner.token, {});
        const content = await getState(space, "m.room.power_levels");
        await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(space)}/state/m.room.power_levels/`, owner.token, {
          ...content,
          users: { ...content.users, [handMade.userId]: 100 },
        });
        await eventually(
          async () =>
            (await ok(call(service, "GET", `/api/v1/sites/${site}/roles`, {}))).admins.some(
              (e: any) => e.user_id === handMade.userId,
            ),
          20_000,
          "hand-made admin projected",
        );

        const transfer = await ok(
          call(service, "POST", `/api/v1/sites/${site}/ownership-transfers`, claimHeader(token), {
            user_id: target.userId,
          }),
        );
        assert.equal(transfer.pending, true);
        assert.equal(transfer.level, 100);
        assert.equal(transfer.user_id, target.userId);
        assert.deepEqual(
          [transfer.transfer.site_id, transfer.transfer.user_id, transfer.transfer.status],
          [site, target.userId, "pending"],
        );

        const outcome = await service.services.governance.redeem(target.userId, transfer.verify_token);
        assert.ok(outcome.ok && typeof outcome.newClaimToken === "string");
        assert.equal(outcome.role, "admin");
        for (const roomId of [space, room]) {
          assert.equal(await levelIn(roomId, target.userId), 100);
          assert.equal(await levelIn(roomId, owner.userId), undefined);
        }
        assert.equal(await levelIn(space, handMade.userId), undefined, "admins made by hand are removed too");
        assert.equal(
          (await service.services.db.ownershipTransfer.findFirstOrThrow({ where: { siteId: site } })).status,
          "complete",
        );
        assert.deepEqual(await service.services.governance.rolesOf(owner.userId), []);

        const probe = await newUser("probe");
        assert.equal(
          await statusAndCode(
            call(service, "POST", `/api/v1/sites/${site}/manager-claims`, claimHeader(token), {
              user_id: probe.userId,
            }),
          ),
          "403 invalid-claim-token",
        );
        await ok(
          call(service, "POST", `/api/v1/sites/${site}/manager-claims`, claimHeader(outcome.newClaimToken!), {
            user_id: probe.userId,
          }),
        );
      });

      test("a new transfer replaces a pending one", async () => {
        const site = uniqueSiteId("gov-transfer2");
        const token = await siteToken(site);
        const [first, second] = await Promise.all([newUser("first"), newUser("second")]);
        const a = await ok(
          call(service, "POST", `/api/v1/sites/${site}/ownership-transfers`, claimHeader(token), {
            user_id: first.userId,
          }),
        );
        await ok(
          call(service, "POST", `/api/v1/sites/${site}/ownership-transfers`, claimHeader(token), {
            user_id: second.userId,
          }),
        );
        assert.deepEqual(await service.services.governance.redeem(first.userId, a.verify_token), {
          ok: false,
          reason: "unknown-token",
        });
        const statuses = (
          await service.services.db.ownershipTransfer.findMany({
            where: { siteId: site },
            orderBy: { createdAt: "asc" },
          })
        ).map((t) => t.status);
        assert.deepEqual(statuses.sort(), ["cancelled", "pending"]);
      });

      test("claim-token rotation: a fresh token, the old one refused at once", async () => {
        const site = uniqueSiteId("gov-rotate");
        const token = await siteToken(site);
        const rotated = await ok(
          call(service, "POST", `/api/v1/sites/${site}/claim-token-rotations`, claimHeader(token)),
        );
        assert.equal(rotated.site_id, site);
        assert.notEqual(rotated.claim_token, token);
        assert.equal(
          await statusAndCode(call(service, "POST", `/api/v1/sites/${site}/claim-token-rotations`, claimHeader(token))),
          "403 invalid-claim-token",
        );
        const again = await ok(
          call(service, "POST", `/api/v1/sites/${site}/claim-token/rotate`, claimHeader(rotated.claim_token)),
        );
        assert.equal(
          await statusAndCode(
            call(service, "POST", `/api/v1/sites/${site}/claim-token/rotate`, claimHeader(rotated.claim_token)),
          ),
          "403 invalid-claim-token",
        );
        assert.equal(
          (await call(service, "POST", `/api/v1/sites/${site}/claim-token-rotations`, claimHeader(again.claim_token)))
            .status,
          200,
        );
      });
    });

    describe("Matrix is the truth; the convergence pass repairs what the service failed to write", () => {
      test("a level edited by hand shows in the rosters and is not reverted; failed writes and missing rows are repaired", async () => {
        const site = uniqueSiteId("gov-hand");
        const token = await siteToken(site);
        const room = await pageRoom(site, "p");
        const [admin, mod, manager] = await Promise.all([newUser("admin"), newUser("mod"), newUser("manager")]);
        await appoint(site, token, "/admin-claims", admin.userId);
        await appoint(site, token, "/pages/p/moderator-claims", mod.userId);
        await matrixRequest("POST", `/_matrix/client/v3/join/${enc(room)}`, admin.token, {});
        const content = await getState(room, "m.room.power_levels");
        await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(room)}/state/m.room.power_levels/`, admin.token, {
          ...content,
          users: { ...content.users, [mod.userId]: 60 },
        });
        await eventually(
          async () => {
            const roles = await ok(call(service, "GET", `/api/v1/sites/${site}/pages/p/moderators`, {}));
            return roles.moderators.some((e: any) => e.user_id === mod.userId && e.level === 60);
          },
          20_000,
          "hand-edited level in the roster",
        );

        await service.services.convergencePass.runAll();
        assert.equal(await levelIn(room, mod.userId), 60, "not reverted");

        // A write the homeserver never accepted, and a room that lacks a role's row (created while the role changed).
        await appoint(site, token, "/manager-claims", manager.userId);
        const space = await spaceOf(site);
        const spaceContent = await getState(space, "m.room.power_levels");
        const { [manager.userId]: _dropped, ...others } = spaceContent.users;
        await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(space)}/state/m.room.power_levels/`, undefined, {
          ...spaceContent,
          users: others,
        });
        await service.services.db.rolePowerLevel.update({
          where: { roomId_userId: { roomId: space, userId: manager.userId } },
          data: { written: false },
        });
        const roomContent = await getState(room, "m.room.power_levels");
        const { [manager.userId]: _gone, ...rest } = roomContent.users;
        await matrixRequest("PUT", `/_matrix/client/v3/rooms/${enc(room)}/state/m.room.power_levels/`, undefined, {
          ...roomContent,
          users: rest,
        });
        await service.services.db.rolePowerLevel.delete({
          where: { roomId_userId: { roomId: room, userId: manager.userId } },
        });

        await service.services.convergencePass.runAll();
        assert.equal(await levelIn(space, manager.userId), 75, "the failed write was repeated");
        assert.equal(await levelIn(room, manager.userId), 75, "the missing row was created and written");
        assert.equal(await levelIn(room, mod.userId), 60, "still not reverted");

        // A new claim of the role writes it again.
        assert.equal((await appoint(site, token, "/pages/p/moderator-claims", mod.userId)).ok, true);
        assert.equal(await levelIn(room, mod.userId), 50, "re-appointed");
      });
    });
  });

// The route forms and codes share the code paths above: SQLite only.
describe("route forms on sqlite", () => {
  useService("sqlite");

  describe("alternate forms and operator mirrors", () => {
    test("POST on the collections, DELETE with ?user_id=, ownership/transfer, operator mirrors: the same shapes", async () => {
      const site = uniqueSiteId("gov-forms");
      const token = await siteToken(site);
      const room = await pageRoom(site, "p");
      const space = await spaceOf(site);
      const users = await Promise.all(["a", "b", "c", "d", "e", "f", "g"].map(newUser));
      const owner = (path: string) => `/api/v1/sites/${site}${path}`;
      const operator = (path: string) => `/api/v1/operator/sites/${site}${path}`;
      const forms = [
        {
          claim: owner("/admins"),
          revoke: (u: string) => owner(`/admins?user_id=${enc(u)}`),
          auth: claimHeader(token),
          level: 100,
          rooms: [space, room],
        },
        {
          claim: owner("/managers"),
          revoke: (u: string) => owner(`/managers?user_id=${enc(u)}`),
          auth: claimHeader(token),
          level: 75,
          rooms: [space, room],
        },
        {
          claim: owner("/pages/p/moderators"),
          revoke: (u: string) => owner(`/pages/p/moderators?user_id=${enc(u)}`),
          auth: claimHeader(token),
          level: 50,
          rooms: [room],
        },
        {
          claim: operator("/admin-claims"),
          revoke: (u: string) => operator(`/admins/${enc(u)}`),
          auth: OPERATOR,
          level: 100,
          rooms: [space, room],
        },
        {
          claim: operator("/manager-claims"),
          revoke: (u: string) => operator(`/managers/${enc(u)}`),
          auth: OPERATOR,
          level: 75,
          rooms: [space, room],
        },
        {
          claim: operator("/pages/p/moderator-claims"),
          revoke: (u: string) => operator(`/pages/p/moderators/${enc(u)}`),
          auth: OPERATOR,
          level: 50,
          rooms: [room],
        },
      ];
      for (const [i, form] of forms.entries()) {
        const user = users[i]!.userId;
        const claim = await ok(call(service, "POST", form.claim, form.auth, { user_id: user }));
        assert.deepEqual([claim.pending, claim.user_id, claim.level], [true, user, form.level], form.claim);
        assert.equal((await service.services.governance.redeem(user, claim.verify_token)).ok, true);
        for (const roomId of form.rooms) assert.equal(await levelIn(roomId, user), form.level, form.claim);
        const revoked = await ok(call(service, "DELETE", form.revoke(user), form.auth));
        assert.equal(revoked.revoked, true);
        assert.equal(revoked.level, form.level);
        for (const roomId of form.rooms) assert.equal(await levelIn(roomId, user), undefined, form.revoke(user));
        assert.equal(
          await statusAndCode(call(service, "DELETE", form.revoke(user), form.auth)),
          "404 role-not-found",
          form.revoke(user),
        );
      }
      for (const path of [owner("/ownership/transfer"), operator("/ownership-transfers")]) {
        const auth = path.startsWith("/api/v1/operator") ? OPERATOR : claimHeader(token);
        const transfer = await ok(call(service, "POST", path, auth, { user_id: users[6]!.userId }));
        assert.deepEqual([transfer.pending, transfer.level, transfer.transfer.status], [true, 100, "pending"], path);
      }
    });
  });

  describe("retirement", () => {
    test("a retired page's moderators go with its room; the site's roles stay", async () => {
      const site = uniqueSiteId("gov-retire");
      const token = await siteToken(site);
      await pageRoom(site, "p");
      const [mod, manager] = await Promise.all([newUser("mod"), newUser("manager")]);
      await appoint(site, token, "/pages/p/moderator-claims", mod.userId);
      await appoint(site, token, "/manager-claims", manager.userId);
      assert.equal(
        (await call(service, "POST", `/api/v1/sites/${site}/pages/p/retirement`, claimHeader(token))).status,
        202,
      );
      await eventually(
        async () => (await service.services.db.retirement.count({ where: { siteId: site } })) === 0,
        60_000,
        "page retirement done",
      );
      assert.equal(await service.services.governance.hasStanding(mod.userId), false);
      assert.deepEqual(await service.services.governance.rolesOf(manager.userId), [
        { siteId: site, role: "manager", pageSlug: null, level: 75 },
      ]);
      const fresh = await pageRoom(site, "p");
      assert.equal(await levelIn(fresh, mod.userId), undefined, "the fresh room starts without the old moderators");
      assert.equal(await levelIn(fresh, manager.userId), 75);
    });
  });

  describe("validation and problem codes", () => {
    const SERVICE_USER = `@${TEST_NAMESPACE_PREFIX}bot:${TEST_SERVER_NAME}`;
    const VISITOR_USER = `@${TEST_NAMESPACE_PREFIX}v_0123456789abcdef:${TEST_SERVER_NAME}`;

    test("user ids: malformed is validation-error, the service's own users are reserved-user-id, on every claim route", async () => {
      const site = uniqueSiteId("gov-codes");
      const token = await siteToken(site);
      const claims: [string, Record<string, string>][] = [
        ...[
          "/admin-claims",
          "/manager-claims",
          "/pages/p/moderator-claims",
          "/admins",
          "/managers",
          "/pages/p/moderators",
          "/ownership-transfers",
          "/ownership/transfer",
        ].map((p) => [`/api/v1/sites/${site}${p}`, claimHeader(token)] as [string, Record<string, string>]),
        ...["/admin-claims", "/manager-claims", "/pages/p/moderator-claims", "/ownership-transfers"].map(
          (p) => [`/api/v1/operator/sites/${site}${p}`, OPERATOR] as [string, Record<string, string>],
        ),
      ];
      for (const [path, auth] of claims) {
        assert.equal(
          await statusAndCode(call(service, "POST", path, auth, { user_id: SERVICE_USER })),
          "400 reserved-user-id",
          path,
        );
        assert.equal(
          await statusAndCode(call(service, "POST", path, auth, { user_id: VISITOR_USER })),
          "400 reserved-user-id",
          path,
        );
        for (const bad of ["alice", "@alice", "@:localhost", "@al ice:localhost", `@${"a".repeat(260)}:localhost`]) {
          assert.equal(
            await statusAndCode(call(service, "POST", path, auth, { user_id: bad })),
            "400 validation-error",
            `${path} ${bad}`,
          );
        }
        assert.equal(await statusAndCode(call(service, "POST", path, auth, {})), "400 validation-error", path);
      }
      assert.equal(
        await statusAndCode(
          call(service, "POST", `/api/v1/sites/${site}/pages/NOPE/moderator-claims`, claimHeader(token), {
            user_id: "@a:localhost",
          }),
        ),
        "400 validation-error",
      );
      assert.equal(
        await statusAndCode(call(service, "DELETE", `/api/v1/sites/${site}/admins/not-a-user`, claimHeader(token))),
        "400 validation-error",
      );
      assert.equal(
        await statusAndCode(call(service, "DELETE", `/api/v1/sites/${site}/admins`, claimHeader(token))),
        "400 validation-error",
        "user_id query required",
      );
      assert.equal(
        await statusAndCode(
          call(service, "POST", `/api/v1/sites/${site}/admin-claims`, {}, { user_id: "@a:localhost" }),
        ),
        "403 invalid-claim-token",
      );
      assert.equal(
        await statusAndCode(
          call(service, "POST", `/api/v1/sites/${uniqueSiteId("none")}/admin-claims`, claimHeader(token), {
            user_id: "@a:localhost",
          }),
        ),
        "404 site-not-found",
      );
    });

    test("revocations without a claim or role are role-not-found on every revoke route", async () => {
      const site = uniqueSiteId("gov-404");
      const token = await siteToken(site);
      const user = enc("@nobody:localhost");
      const routes: [string, Record<string, string>][] = [
        [`/api/v1/sites/${site}/admins/${user}`, claimHeader(token)],
        [`/api/v1/sites/${site}/managers/${user}`, claimHeader(token)],
        [`/api/v1/sites/${site}/pages/p/moderators/${user}`, claimHeader(token)],
        [`/api/v1/sites/${site}/admins?user_id=${user}`, claimHeader(token)],
        [`/api/v1/sites/${site}/managers?user_id=${user}`, claimHeader(token)],
        [`/api/v1/sites/${site}/pages/p/moderators?user_id=${user}`, claimHeader(token)],
        [`/api/v1/operator/sites/${site}/admins/${user}`, OPERATOR],
        [`/api/v1/operator/sites/${site}/managers/${user}`, OPERATOR],
        [`/api/v1/operator/sites/${site}/pages/p/moderators/${user}`, OPERATOR],
      ];
      for (const [path, auth] of routes)
        assert.equal(await statusAndCode(call(service, "DELETE", path, auth)), "404 role-not-found", path);
    });

    test("operator mirrors: unknown sites are site-not-found, retiring ones site-retired; the operator token is required", async () => {
      const retiring = uniqueSiteId("gov-retiring");
      await siteToken(retiring);
      await service.services.db.site.update({ where: { id: retiring }, data: { status: "retiring" } });
      const unknown = uniqueSiteId("gov-unknown");
      const user = "@someone:localhost";
      const calls: [string, string, unknown?][] = [
        ["POST", "/admin-claims", { user_id: user }],
        ["POST", "/manager-claims", { user_id: user }],
        ["POST", "/pages/p/moderator-claims", { user_id: user }],
        ["DELETE", `/admins/${enc(user)}`],
        ["DELETE", `/managers/${enc(user)}`],
        ["DELETE", `/pages/p/moderators/${enc(user)}`],
        ["POST", "/ownership-transfers", { user_id: user }],
      ];
      for (const [method, path, body] of calls) {
        assert.equal(
          await statusAndCode(call(service, method, `/api/v1/operator/sites/${unknown}${path}`, OPERATOR, body)),
          "404 site-not-found",
          path,
        );
        assert.equal(
          await statusAndCode(call(service, method, `/api/v1/operator/sites/${retiring}${path}`, OPERATOR, body)),
          "410 site-retired",
          path,
        );
        assert.equal(
          await statusAndCode(call(service, method, `/api/v1/operator/sites/${retiring}${path}`, {}, body)),
          "403 invalid-operator-token",
          path,
        );
      }
    });
  });
});
