import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "graphql";
import { schema } from "../../src/app/graphql-schema.ts";
import { apiRoutes } from "../../src/app/api-document.ts";
import { checkRouteOperation } from "../../src/rest/route-checks.ts";
import type { Route } from "../../src/rest/route.ts";

const route = (auth: Route["auth"]) => ({ operationId: "x", auth }) as Route;

test("every route of the table passes", () => {
  for (const r of apiRoutes)
    if (r.kind === "operation" || r.kind === "stream") checkRouteOperation(schema, r, parse(r.document));
});

test("a route declaring an author proof must run one visitor-write mutation", () => {
  const write = parse(
    `mutation { react(input: {siteId: "s", pageSlug: "p", commentId: "$c", key: "k", authorPublicKey: "a", authorSignature: "b", challengeResponse: "c"}) { submissionId } }`,
  );
  checkRouteOperation(schema, route("author-proof"), write);
  checkRouteOperation(schema, route("site-write"), write);
  const other = parse(`mutation { registerSite(siteId: "s") { siteId } }`);
  assert.throws(
    () => checkRouteOperation(schema, route("author-proof"), other),
    /does not run exactly one visitor-write mutation/,
  );
  assert.throws(
    () => checkRouteOperation(schema, route("site-write"), parse(`query { health { status } }`)),
    /visitor-write/,
  );
  checkRouteOperation(schema, route("public"), other);
});
