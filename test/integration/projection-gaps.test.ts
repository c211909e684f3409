// The projection gap check, for real: a service whose appservice endpoint refuses every push
// (its hs_token is not the one the homeserver was registered with) still lists the comments it
// sent, fetched from the homeserver, by its periodic check and by the check after a start; when
// the push comes through later, each stays listed once. On SQLite and PostgreSQL.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  eventually,
  freshDatabase,
  PROVIDERS,
  startTestService,
  TEST_ORIGIN,
  uniqueSiteId,
} from "../support/harness.ts";
import { Visitor } from "../support/visitor.ts";
import { LISTED_WITHOUT_PUSH_MS, listComments } from "../support/reads.ts";

/** The homeserver's pushes carry the registered hs_token; an instance expecting another refuses them all. */
const REFUSING_PUSHES = { "matrix.hs_token": "not-the-registered-hs-token" };

for (const provider of PROVIDERS) {
  describe(`projection gap check (${provider})`, () => {
    test("acknowledged comments the homeserver never pushes back are listed within the bound, after a start too, and once when the push comes", async () => {
      const siteId = uniqueSiteId("gaps");
      const sites = { [siteId]: { origins: [TEST_ORIGIN] } };
      const database = await freshDatabase(provider);
      const logs: string[] = [];
      let service = await startTestService({
        databaseUrl: database.url,
        sites,
        overrides: REFUSING_PUSHES,
        log: (m) => logs.push(m),
      });
      try {
        const visitor = new Visitor(service.url, TEST_ORIGIN);
        const post = async (content: string) => {
          const res = await visitor.post(
            `/api/v1/sites/${siteId}/pages/p/comments`,
            await visitor.commentBody(siteId, "p", content),
            { "idempotency-key": content.replaceAll(" ", "-") },
          );
          assert.equal(res.status, 202, await res.clone().text());
          const { submission_id } = (await res.json()) as { submission_id: string };
          const sent = await eventually(
            async () => service.services.db.submission.findFirst({ where: { id: submission_id, status: "sent" } }),
            30_000,
            "the submission sent",
          );
          return { submissionId: submission_id, eventId: sent.eventId! };
        };
        const listed = ({ submissionId }: { submissionId: string }) =>
          eventually(
            async () => (await listComments(service, siteId, "p")).data.find((c) => c.submission_id === submissionId),
            LISTED_WITHOUT_PUSH_MS,
            "the comment listed",
          );
        const fetchedByGapCheck = ({ submissionId, eventId }: { submissionId: string; eventId: string }) =>
          assert.ok(
            logs.some((m) => m.includes(`event ${eventId} of submission ${submissionId} was not pushed`)),
            "the gap check fetched it",
          );

        // Sent, then the instance stops before its check came due: the next start's check finds it.
        const first = await post("sent before a restart");
        await service.stop();
        assert.equal(
          await service.services.db.matrixEvent.count({ where: { eventId: first.eventId } }),
          0,
          "not projected before the stop",
        );
        service = await startTestService({
          databaseUrl: database.url,
          sites,
          overrides: REFUSING_PUSHES,
          log: (m) => logs.push(m),
        });
        assert.equal((await listed(first)).event_id, first.eventId);
        fetchedByGapCheck(first);

        // Sent while the instance runs: its periodic check finds it.
        const second = await post("sent while running");
        assert.equal((await listed(second)).event_id, second.eventId);
        fetchedByGapCheck(second);
        assert.equal((await service.services.metrics.projectionGapsFilled.get()).values[0]?.value, 2);
        // Nothing was pushed: the visitor's join, which the gap check does not fetch, is not stored.
        const joined = {
          type: "m.room.member",
          stateKey: service.services.names.visitorUserId(siteId, visitor.publicKey),
        };
        assert.equal(await service.services.db.matrixEvent.count({ where: joined }), 0);
        await service.stop();

        // The right token: the start's ping makes the homeserver deliver its backlog at once.
        service = await startTestService({ databaseUrl: database.url, sites });
        await eventually(
          async () => service.services.db.matrixEvent.findFirst({ where: joined }),
          60_000,
          "the pushed backlog",
        );
        const comments = (await listComments(service, siteId, "p")).data;
        assert.deepEqual(
          comments.map((c) => c.submission_id).sort(),
          [first.submissionId, second.submissionId].sort(),
          "each listed once after the push repeated the events",
        );
        assert.equal(
          await service.services.db.matrixEvent.count({ where: { eventId: { in: [first.eventId, second.eventId] } } }),
          2,
        );
      } finally {
        await service.stop();
        await database.drop();
      }
    });
  });
}
