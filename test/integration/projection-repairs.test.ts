// Projection repairs through the operator API, on real SQLite and PostgreSQL with the real test
// Synapse: listed by status, read by a percent-encoded event id, retried by the operator (202,
// then the repair pass applies the event and the repair is resolved; a resolved one is 409).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { eventually, PROVIDERS, serviceFor, TEST_ORIGIN, uniqueSiteId } from "../support/harness.ts";
import { TEST_OPERATOR_TOKEN } from "../support/environment.ts";
import { Visitor } from "../support/visitor.ts";
import { call, ok } from "../support/calls.ts";
import { expectProblem } from "../support/problems.ts";
import { listComments, whenListed } from "../support/reads.ts";
import { registerSite } from "../support/sites.ts";
import { roomEvents } from "../support/room-events.ts";

const OPERATOR = { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` };
const REPAIRS = "/api/v1/operator/projection-repairs";

for (const provider of PROVIDERS) {
  describe(`projection repairs (${provider})`, () => {
    const holder = serviceFor(provider);

    test("a failed event's repair is listed, read, retried by the operator and resolved when it applies", async () => {
      const service = holder.service;
      const { db } = service.services;
      const site = uniqueSiteId("rp");
      await registerSite(service, site, [TEST_ORIGIN]);
      const visitor = new Visitor(service.url, TEST_ORIGIN);
      const res = await visitor.post(
        `/api/v1/sites/${site}/pages/p/comments`,
        await visitor.commentBody(site, "p", "hello"),
        { "idempotency-key": randomUUID() },
      );
      const { event_id } = await whenListed(res, async () => (await listComments(service, site, "p")).data);
      // As if applying it had failed: the stored event failed, its repair manual.
      await db.matrixEvent.update({ where: { eventId: event_id }, data: { status: "failed" } });
      await db.projectionRepair.create({
        data: {
          targetEventId: event_id,
          eventType: "m.room.message",
          reason: "simulated failure",
          status: "manual",
          attempts: 4,
        },
      });
      const path = `${REPAIRS}/${encodeURIComponent(event_id)}`;

      const manual = await ok(call(service, "QUERY", REPAIRS, OPERATOR, { status: "manual", per_page: 100 }));
      assert.ok(manual.data.some((r: any) => r.target_event_id === event_id && r.reason === "simulated failure"));
      await expectProblem(
        await fetch(`${service.url}${REPAIRS}`, {
          method: "QUERY",
          headers: { ...OPERATOR, "content-type": "application/json" },
          body: JSON.stringify({ status: "lost" }),
        }),
        400,
        "validation-error",
      );
      assert.equal((await ok(call(service, "GET", path, OPERATOR))).status, "manual");
      for (const missing of [
        `${REPAIRS}/${encodeURIComponent("$nope/x:localhost")}`,
        `${REPAIRS}/${encodeURIComponent("$nope:localhost")}/retry`,
      ]) {
        await expectProblem(
          await fetch(`${service.url}${missing}`, {
            method: missing.endsWith("retry") ? "POST" : "GET",
            headers: OPERATOR,
          }),
          404,
          "repair-not-found",
        );
      }

      const retried = await call(service, "POST", `${path}/retry`, OPERATOR);
      assert.equal(retried.status, 202, JSON.stringify(retried.body));
      assert.equal(retried.body.target_event_id, event_id);
      assert.ok(["pending", "resolved"].includes(retried.body.status));
      await eventually(
        async () => (await ok(call(service, "GET", path, OPERATOR))).status === "resolved",
        20_000,
        "the repair resolved",
      );
      assert.equal((await db.matrixEvent.findUnique({ where: { eventId: event_id } }))?.status, "applied");
      await expectProblem(
        await fetch(`${service.url}${path}/retry`, { method: "POST", headers: OPERATOR }),
        409,
        "repair-resolved",
      );
    });

    test("a repair is resolved by its late target: the event arrives and applies", async () => {
      const service = holder.service;
      const { db, projector } = service.services;
      const site = uniqueSiteId("rl");
      await registerSite(service, site, [TEST_ORIGIN]);
      const roomId = `!late-${randomUUID()}:localhost`;
      await db.room.create({ data: { roomId, siteId: site, pageSlug: "p", roomVersion: "12" } });
      const late = roomEvents(roomId).text("@alice:localhost", "late but whole");
      // Recorded before the event itself came (an entry that could not even be stored): manual.
      await projector.recordRejected(
        late.event_id,
        { roomId, type: "m.room.message" },
        "entry 3 of a transaction was malformed",
      );
      assert.equal(
        (await ok(call(service, "GET", `${REPAIRS}/${encodeURIComponent(late.event_id)}`, OPERATOR))).status,
        "manual",
      );
      await projector.applyTransaction([late]);
      const resolved = await ok(call(service, "GET", `${REPAIRS}/${encodeURIComponent(late.event_id)}`, OPERATOR));
      assert.equal(resolved.status, "resolved");
      assert.equal(resolved.next_retry_at, null);
      assert.deepEqual(
        (await listComments(service, site, "p")).data.map((m: any) => m.content.body),
        ["late but whole"],
      );
    });

    test("a pending repair is retried on schedule by the pass (its clock moved); one with nothing stored becomes manual", async () => {
      const service = holder.service;
      const { db, repairPass } = service.services;
      const id = `$never-stored-${randomUUID()}:localhost`;
      await db.projectionRepair.create({
        data: { targetEventId: id, reason: "late", status: "pending", nextRetryAt: new Date(Date.now() + 60_000) },
      });
      repairPass.clock = () => new Date(Date.now() + 30_000);
      await repairPass.retryDue();
      assert.equal(
        (await db.projectionRepair.findUnique({ where: { targetEventId: id } }))?.status,
        "pending",
        "not due yet",
      );
      repairPass.clock = () => new Date(Date.now() + 120_000);
      await repairPass.retryDue();
      assert.equal((await db.projectionRepair.findUnique({ where: { targetEventId: id } }))?.status, "manual");
    });
  });
}
