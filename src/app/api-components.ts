// The OpenAPI components: the shared ones (src/rest/schemas.ts) and every feature's, in the order
// openapi/openapi.json lists them.
import { components as shared } from "../rest/schemas.ts";
import { components as comments } from "../features/comments/schemas.ts";
import { components as live } from "../features/live/schemas.ts";
import { components as media } from "../features/media/schemas.ts";
import { components as meta } from "../features/meta/schemas.ts";
import { components as sites } from "../features/sites/schemas.ts";
import { components as verification } from "../features/verification/schemas.ts";
import { components as rooms } from "../features/rooms/schemas.ts";
import { components as operator } from "../features/operator/schemas.ts";
import { components as repairs } from "../features/repairs/schemas.ts";
import { components as imports } from "../features/imports/schemas.ts";
import { components as retirement } from "../features/retirement/schemas.ts";
import { components as stickers } from "../features/stickers/schemas.ts";
import { components as visitors } from "../features/visitors/schemas.ts";
import { components as governance } from "../features/governance/schemas.ts";
import { components as webhooks } from "../features/webhooks/schemas.ts";
import { components as dashboard } from "../features/dashboard/schemas.ts";

const { Problem, PaginationMeta, SubmissionAccepted } = shared;

export const apiComponents = {
  Problem,
  PaginationMeta,
  ...comments,
  ...live,
  SubmissionAccepted,
  ...media,
  ...meta,
  ...sites,
  ...verification,
  ...rooms,
  ...operator,
  ...repairs,
  ...imports,
  ...retirement,
  ...stickers,
  ...visitors,
  ...governance,
  ...webhooks,
  ...dashboard,
};
