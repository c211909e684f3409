// THE route table: the single source of truth for the REST surface, one module per tag.
// Routing, request validation, the handlers (GraphQL operations run in-process) and
// openapi/openapi.json are all derived from these entries.
import type { Route } from "../route.ts";
import { challenge, health, openapiDocument } from "./meta.ts";
import { registerSite } from "./sites.ts";
import { listComments, postComment } from "./comments.ts";
import { pageEvents } from "./live.ts";

export function buildRoutes(document: () => unknown): Route[] {
  return [health, challenge, openapiDocument(document), registerSite, listComments, postComment, pageEvents];
}
