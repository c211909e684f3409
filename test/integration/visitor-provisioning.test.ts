// A new visitor's virtual user, provisioned by two submissions at once or after a crash: the
// second registration and record are no-ops, never an error. On SQLite and PostgreSQL, against
// the real test Synapse.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Provisioner } from "../../src/features/rooms/provisioning.ts";
import { RolePowerLevels } from "../../src/features/governance/power-levels.ts";
import { eventually, PROVIDERS, serviceFor, TEST_ORIGIN, uniqueSiteId } from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { listComments } from "../support/reads.ts";

const SITE = uniqueSiteId("newvisitor");
const CONCURRENT = 6;

for (const provider of PROVIDERS) {
  describe(`a new visitor's virtual user (${provider})`, () => {
    const running = serviceFor(provider, { sites: { [SITE]: { origins: [TEST_ORIGIN] } } });
    /** A provisioner of its own on the service's database and homeserver: a second worker, as another instance would run. */
    const provisioner = () => {
      const { db, homeserver, config, log, quarantines } = running.service.services;
      return new Provisioner(
        db,
        homeserver,
        config.matrix.roomVersion,
        async () => {},
        new RolePowerLevels(db, homeserver, log),
        quarantines,
      );
    };

    test("provisioned by several submissions at once: one user, recorded once, no error", async () => {
      const visitor = new Visitor(running.service.url, TEST_ORIGIN);
      const workers = Array.from({ length: CONCURRENT }, provisioner);
      const userIds = await Promise.all(
        workers.map((p, i) => p.ensureVisitor(SITE, visitor.key, i % 2 ? "Ada" : null)),
      );
      assert.equal(new Set(userIds).size, 1);
      const rows = await running.service.services.db.virtualUser.findMany({ where: { userId: userIds[0] } });
      assert.equal(rows.length, 1);
    });

    test("two first submissions of one new visitor on two pages at once: both sent on their first attempt", async () => {
      const visitor = new Visitor(running.service.url, TEST_ORIGIN);
      const pages = ["first-a", "first-b"];
      const bodies = await Promise.all(
        pages.map((page) => visitor.commentBody(SITE, page, `first on ${page}`, { display_name: "Grace" })),
      );
      const answers = await Promise.all(
        pages.map((page, i) =>
          visitor.post(`/api/v1/sites/${SITE}/pages/${page}/comments`, bodies[i], {
            "idempotency-key": `first-${page}`,
          }),
        ),
      );
      const ids = await Promise.all(
        answers.map(async (res) => {
          const text = await res.text();
          assert.equal(res.status, 202, text);
          return (JSON.parse(text) as { submission_id: string }).submission_id;
        }),
      );
      const db = running.service.services.db;
      const done = await eventually(
        async () => {
          const rows = await db.submission.findMany({ where: { id: { in: ids }, status: { not: "queued" } } });
          return rows.length === ids.length ? rows : null;
        },
        60_000,
        "both submissions performed",
      );
      for (const row of done)
        assert.deepEqual(
          { status: row.status, attempts: row.attempts, lastError: row.lastError },
          { status: "sent", attempts: 1, lastError: null },
        );
      for (const [i, page] of pages.entries()) {
        await eventually(
          async () => (await listComments(running.service, SITE, page)).data.some((c) => c.submission_id === ids[i]),
          30_000,
          `the comment on ${page}`,
        );
      }
    });

    test("registered and named on the homeserver by an attempt that crashed before recording either: the next attempt adopts the user", async () => {
      const visitor = new Visitor(running.service.url, TEST_ORIGIN);
      const { homeserver, names, db } = running.service.services;
      // The crashed attempt registered the user and set its display name, and recorded neither.
      await homeserver.registerUser(names.visitorLocalpart(SITE, visitor.publicKey));
      await homeserver.setDisplayName(names.visitorUserId(SITE, visitor.publicKey), "Lin");
      const userId = await provisioner().ensureVisitor(SITE, visitor.key, "Lin");
      assert.equal(userId, names.visitorUserId(SITE, visitor.publicKey));
      assert.equal((await db.virtualUser.findUniqueOrThrow({ where: { userId } })).displayName, "Lin");
    });
  });
}
