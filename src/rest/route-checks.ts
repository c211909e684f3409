// Start-up checks that a route table entry's declarations hold for the operation it runs, so
// the table cannot declare what no code enforces.
import { Kind, type DocumentNode, type GraphQLSchema } from "graphql";
import type { Route } from "./route.ts";
import { VISITOR_WRITE_EXTENSION } from "../writes/operation.ts";

/**
 * An entry declaring an author proof (author-proof, site-write) must run a visitor-write
 * mutation: the write pipeline is what verifies the proof against the operation's signature
 * array, its proof of work and its targets.
 */
export function checkRouteOperation(schema: GraphQLSchema, route: Route, document: DocumentNode): void {
  if (route.auth !== "author-proof" && route.auth !== "site-write") return;
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  const selection =
    operation?.kind === Kind.OPERATION_DEFINITION && operation.operation === "mutation"
      ? operation.selectionSet.selections
      : [];
  const fields = selection.filter((s) => s.kind === Kind.FIELD);
  const mutations = schema.getMutationType()?.getFields() ?? {};
  const ok = fields.length === 1 && mutations[fields[0]!.name.value]?.extensions?.[VISITOR_WRITE_EXTENSION] === true;
  if (!ok)
    throw new Error(
      `route ${route.operationId} declares auth "${route.auth}" but does not run exactly one visitor-write mutation (the write pipeline)`,
    );
}
