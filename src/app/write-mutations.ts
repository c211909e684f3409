// The visitor-write mutations, derived from the writes the features' route modules run
// (src/writes/mutations.ts). graphql-schema.ts imports this module where they belong among the
// mutations; they are listed in the schema's order (locations were added after the uploads).
import { registerVisitorWrites } from "../writes/mutations.ts";
import { writesOf } from "./route-table.ts";
import { commentRoutes } from "../features/comments/routes.ts";
import { reactionRoutes } from "../features/comments/reaction-routes.ts";
import { pollRoutes } from "../features/comments/poll-routes.ts";
import { uploadRoutes } from "../features/media/upload-routes.ts";
import { visitorRoutes } from "../features/visitors/routes.ts";
import { locationRoutes } from "../features/comments/location-routes.ts";

registerVisitorWrites(writesOf([...commentRoutes, ...reactionRoutes, ...pollRoutes, ...uploadRoutes, ...visitorRoutes, ...locationRoutes]));
