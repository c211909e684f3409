// Operator routes of projection repairs: the list, one repair by its target event id, a retry.
import type { OperationRoute, Route } from "../../rest/route.ts";
import { ref } from "../../rest/schemas.ts";
import { operatorAuth as operator } from "../../rest/route-helpers.ts";
import { requestBodies } from "./schemas.ts";

const REPAIRS = "/api/v1/operator/projection-repairs";
const REPAIR = `{ target_event_id: targetEventId room_id: roomId event_type: eventType reason status attempts
  next_retry_at: nextRetryAt created_at: createdAt updated_at: updatedAt }`;
const eventPath = {
  target_event_id: {
    type: "string",
    minLength: 1,
    description: "The event id, percent-encoded ($, : and / included).",
  },
} as const;
const one = { 200: { description: "The repair.", schema: ref("ProjectionRepair") } };

export const operatorListRepairs: OperationRoute = {
  kind: "operation",
  operationId: "operatorListRepairs",
  method: "QUERY",
  path: REPAIRS,
  ...operator,
  summary: "Projection repairs, oldest first.",
  description:
    "Events the projection could not apply: pending ones are retried automatically with backoff, then manual; resolved once the event applies. status narrows the list.",
  body: { schema: requestBodies.listRepairs, optional: true },
  document: `query ProjectionRepairs($page: Int, $perPage: Int, $status: String) { projectionRepairs(page: $page, perPage: $perPage, status: $status) {
    data ${REPAIR} meta { total page per_page: perPage total_pages: totalPages } } }`,
  variables: (input) => ({ page: input.body.page, perPage: input.body.per_page, status: input.body.status ?? null }),
  respond: (data) => ({ status: 200, body: data.projectionRepairs }),
  responses: { 200: { description: "One page of repairs.", schema: ref("ProjectionRepairPage") } },
  problems: { 400: ["validation-error"] },
};

export const operatorGetRepair: OperationRoute = {
  kind: "operation",
  operationId: "operatorGetRepair",
  method: "GET",
  path: `${REPAIRS}/{target_event_id}`,
  ...operator,
  summary: "One projection repair.",
  params: eventPath,
  document: `query ProjectionRepair($targetEventId: String!) { projectionRepair(targetEventId: $targetEventId) ${REPAIR} }`,
  variables: (input) => ({ targetEventId: input.params.target_event_id }),
  respond: (data) => ({ status: 200, body: data.projectionRepair }),
  responses: one,
  problems: { 404: ["repair-not-found"] },
};

export const operatorRetryRepair: OperationRoute = {
  kind: "operation",
  operationId: "operatorRetryRepair",
  method: "POST",
  path: `${REPAIRS}/{target_event_id}/retry`,
  ...operator,
  summary: "Retry a projection repair.",
  description:
    "A pending or manual repair is requeued (the repair pass applies its event again soon); the answer is the updated row. A resolved repair is 409 repair-resolved.",
  params: eventPath,
  document: `mutation RetryProjectionRepair($targetEventId: String!) { retryProjectionRepair(targetEventId: $targetEventId) ${REPAIR} }`,
  variables: (input) => ({ targetEventId: input.params.target_event_id }),
  respond: (data) => ({ status: 202, body: data.retryProjectionRepair }),
  responses: { 202: { description: "Requeued.", schema: ref("ProjectionRepair") } },
  problems: { 404: ["repair-not-found"], 409: ["repair-resolved"] },
};

export const repairRoutes: Route[] = [operatorListRepairs, operatorGetRepair, operatorRetryRepair];
