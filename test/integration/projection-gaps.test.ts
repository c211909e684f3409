// The projection gap check, for real: a service whose appservice endpoint refuses every push
// (its hs_token is not the one the homeserver was registered with) still lists a comment it
// sent, fetched from the homeserver; when the push comes through later, the comment stays
// listed once. On SQLite and PostgreSQL.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PROJECTION_GAP_CHECK } from "../../src/config/limits.ts";
import { eventually, freshDatabase, PROVIDERS, startTestService, TEST_ORIGIN, uniqueSiteId } from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { listComments } from "../support/reads.ts";

/** The gap check's bound (a walk starts within an interval of the grace running out), plus room for the walk. */
const BOUND_MS = PROJECTION_GAP_CHECK.graceMs + 2 * PROJECTION_GAP_CHECK.intervalMs + 10_000;

for (const provider of PROVIDERS) {
  describe(`projection gap check (${provider})`, () => {
    test("an acknowledged comment the homeserver never pushes back is listed within the bound, and once when the push comes", async () => {
      const siteId = uniqueSiteId("gaps");
      const sites = { [siteId]: { origins: [TEST_ORIGIN] } };
      const database = await freshDatabase(provider);
      const logs: string[] = [];
      // The homeserver's pushes carry the registered hs_token; this instance expects another and refuses them all.
      let service = await startTestService({ databaseUrl: database.url, sites, overrides: { "matrix.hs_token": "not-the-registered-hs-token" }, log: (m) => logs.push(m) });
      try {
        const visitor = new Visitor(service.url, TEST_ORIGIN);
        const res = await visitor.post(`/api/v1/sites/${siteId}/pages/p/comments`, await visitor.commentBody(siteId, "p", "listed without the push"), { "idempotency-key": "gap-1" });
        assert.equal(res.status, 202, await res.clone().text());
        const { submission_id } = (await res.json()) as { submission_id: string };
        const db = service.services.db;
        const sent = await eventually(async () => db.submission.findFirst({ where: { id: submission_id, status: "sent" } }), 30_000, "the submission sent");
        const listed = await eventually(async () => (await listComments(service, siteId, "p")).data.find((c) => c.submission_id === submission_id), BOUND_MS, "the comment listed");
        assert.equal(listed.event_id, sent.eventId);
        assert.ok(logs.some((m) => m.includes(`event ${sent.eventId} of submission ${submission_id} was not pushed`)), "the gap check fetched it");
        assert.equal((await service.services.metrics.projectionGapsFilled.get()).values[0]?.value, 1);
        // Nothing was pushed: the visitor's join, which the gap check does not fetch, is not stored.
        const joined = { type: "m.room.member", stateKey: service.services.names.visitorUserId(siteId, visitor.publicKey) };
        assert.equal(await db.matrixEvent.count({ where: joined }), 0);
        await service.stop();

        // The right token: the start's ping makes the homeserver deliver its backlog at once.
        service = await startTestService({ databaseUrl: database.url, sites });
        await eventually(async () => service.services.db.matrixEvent.findFirst({ where: joined }), 60_000, "the pushed backlog");
        const after = (await listComments(service, siteId, "p")).data.filter((c) => c.submission_id === submission_id);
        assert.equal(after.length, 1, "listed once after the push repeated the event");
        assert.equal(await service.services.db.matrixEvent.count({ where: { eventId: sent.eventId! } }), 1);
      } finally {
        await service.stop();
        await database.drop();
      }
    });
  });
}
