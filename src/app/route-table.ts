// THE route table: the single source of truth for the REST surface, assembled from every
// feature's route modules (one array each). Routing, request validation, the handlers (GraphQL
// operations run in-process) and openapi/openapi.json are all derived from these entries.
import type { Route } from "../rest/route.ts";
import type { AnyWriteOperation } from "../writes/operation.ts";
import { metaRoutes } from "../features/meta/routes.ts";
import { siteRoutes } from "../features/sites/routes.ts";
import { verificationRoutes } from "../features/verification/routes.ts";
import { commentRoutes } from "../features/comments/routes.ts";
import { reactionRoutes } from "../features/comments/reaction-routes.ts";
import { pollRoutes } from "../features/comments/poll-routes.ts";
import { locationRoutes } from "../features/comments/location-routes.ts";
import { uploadRoutes } from "../features/media/upload-routes.ts";
import { liveRoutes } from "../features/live/routes.ts";
import { mediaRoutes } from "../features/media/routes.ts";
import { roomRoutes } from "../features/rooms/routes.ts";
import { roomLifecycleRoutes } from "../features/rooms/lifecycle-routes.ts";
import { repairRoutes } from "../features/repairs/routes.ts";
import { importRoutes } from "../features/imports/routes.ts";
import { operatorRoutes } from "../features/operator/routes.ts";
import { retirementRoutes } from "../features/retirement/routes.ts";
import { stickerRoutes } from "../features/stickers/routes.ts";
import { visitorRoutes } from "../features/visitors/routes.ts";
import { governanceRoutes } from "../features/governance/routes.ts";
import { feedRoutes } from "../features/feeds/routes.ts";
import { webhookRoutes } from "../features/webhooks/routes.ts";
import { dashboardRoutes } from "../features/dashboard/routes.ts";

/** Every route but the meta ones (the OpenAPI document's route needs the document). */
const featureRoutes: Route[] = [
  ...siteRoutes,
  ...verificationRoutes,
  ...commentRoutes,
  ...reactionRoutes,
  ...pollRoutes,
  ...locationRoutes,
  ...uploadRoutes,
  ...liveRoutes,
  ...mediaRoutes,
  ...roomRoutes,
  ...roomLifecycleRoutes,
  ...repairRoutes,
  ...importRoutes,
  ...operatorRoutes,
  ...retirementRoutes,
  ...stickerRoutes,
  ...visitorRoutes,
  ...governanceRoutes,
  ...feedRoutes,
  ...webhookRoutes,
  ...dashboardRoutes,
];

export const buildRoutes = (document: () => unknown): Route[] => [...metaRoutes(document), ...featureRoutes];

/** The visitor writes these routes run, each once (a write can have two route forms). */
export const writesOf = (routes: Route[]): AnyWriteOperation[] => [
  ...new Set(routes.flatMap((route) => (route.kind === "operation" && route.write ? [route.write] : []))),
];

/** Every visitor write: the queue worker performs their kinds. */
export const visitorWrites = writesOf(featureRoutes);
