// The projection gap check's selection: which sent events still need projecting, and how far
// a walk may move on past a batch.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { resumeAfter, unprojected } from "../../src/queue/projection-gaps.ts";
import type { EventStatus } from "../../src/projection/matrix-event-store.ts";
import type { SentSubmission } from "../../src/queue/submission-store.ts";

const sent = (id: string, ms: number): SentSubmission => ({
  id,
  eventId: `$${id}`,
  completedAt: new Date(ms),
  siteId: "s",
  pageSlug: "p",
  payload: "{}",
});
const batch = [sent("a", 1000), sent("b", 1000), sent("c", 2000), sent("d", 3000)];
const start = { completedAt: new Date(0), id: "" };

describe("unprojected", () => {
  test("events not stored, or stored and still waiting, need projecting; applied and failed ones do not", () => {
    const statuses = new Map<string, EventStatus>([
      ["$a", "applied"],
      ["$b", "waiting"],
      ["$d", "failed"],
    ]);
    assert.deepEqual(
      unprojected(batch, statuses).map((s) => s.id),
      ["b", "c"],
    );
  });

  test("a batch whose every event is applied has no gap", () => {
    assert.deepEqual(unprojected(batch, new Map(batch.map((s) => [s.eventId, "applied" as EventStatus]))), []);
  });
});

describe("resumeAfter", () => {
  test("with nothing unresolved, the walk moves past the whole batch", () => {
    assert.deepEqual(resumeAfter(batch, new Set(), start), { completedAt: new Date(3000), id: "d" });
  });

  test("it stops before the first unresolved submission, even when later ones are resolved", () => {
    assert.deepEqual(resumeAfter(batch, new Set(["c"]), start), { completedAt: new Date(1000), id: "b" });
  });

  test("an unresolved first submission keeps the position (its tie on completion time included)", () => {
    assert.deepEqual(resumeAfter(batch, new Set(["a"]), start), start);
    assert.deepEqual(resumeAfter(batch, new Set(["b"]), start), { completedAt: new Date(1000), id: "a" });
  });

  test("an empty batch keeps the position", () => {
    assert.deepEqual(resumeAfter([], new Set(), start), start);
  });
});
