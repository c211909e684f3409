// The operator CLI's derivation of commands from route-table entries, its argument parsing,
// its table output and its exit codes (src/app/operator-cli.ts); the commands against a
// running service: test/integration/operator-cli.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { OperationRoute } from "../../src/rest/route.ts";
import { exitCodeOf, operatorCommands, parseArguments, table } from "../../src/app/operator-cli.ts";

const route = (spec: Partial<OperationRoute>): OperationRoute =>
  ({
    kind: "operation",
    tag: "Operator",
    auth: "operator",
    summary: "",
    responses: {},
    problems: {},
    document: "",
    variables: () => ({}),
    respond: () => ({ status: 200 }),
    ...spec,
  }) as OperationRoute;

test("a command per operator route: its name from the operationId, path parameters positional, query and body fields as options", () => {
  const commands = operatorCommands([
    route({
      operationId: "operatorQuarantineComment",
      method: "POST",
      path: "/api/v1/operator/sites/{site_id}/pages/{page_slug}/quarantine",
      body: {
        schema: {
          type: "object",
          properties: { event_id: { type: "string" }, note: { type: "string" } },
          required: ["event_id"],
        },
        optional: false,
      },
    }),
    route({ operationId: "operatorQuarantineCommentAlternate", method: "POST", path: "/old/{site_id}/{page_slug}" }),
    route({
      operationId: "listRepairs",
      method: "GET",
      path: "/api/v1/operator/repairs",
      query: { properties: { status: { type: "string" } }, required: [] },
    }),
    route({ operationId: "claimAdmin", auth: "claim", method: "POST", path: "/api/v1/sites/{site_id}/admins" }),
  ]);
  assert.deepEqual(
    commands.map((c) => [c.name, c.positional, c.options.map((o) => `${o.in}:${o.name}${o.required ? "!" : ""}`)]),
    [
      ["list-repairs", [], ["query:status"]],
      ["quarantine-comment", ["site_id", "page_slug"], ["body:event_id!", "body:note"]],
    ],
  );
});

test("arguments: --name value, --name=value, bare flags; a missing value is an error", () => {
  const parsed = parseArguments(["cmd", "a", "--x", "1", "--y=two=2", "--json", "b"], new Set(["json"]));
  assert.deepEqual(parsed.positional, ["cmd", "a", "b"]);
  assert.deepEqual(
    [...parsed.options],
    [
      ["x", "1"],
      ["y", "two=2"],
      ["json", "true"],
    ],
  );
  assert.throws(() => parseArguments(["cmd", "--x"], new Set()), /--x needs a value/);
});

test("tables: a page of records as columns with its meta, one record as field/value lines, an empty answer", () => {
  assert.equal(
    table(
      {
        data: [
          { site_id: "blog", origins: ["https://a.example"], secret: null },
          { site_id: "shop", origins: [], extra: 1 },
        ],
        meta: { page: 1, total_pages: 1, total: 2 },
      },
      200,
    ),
    [
      "site_id  origins                secret  extra",
      'blog     ["https://a.example"]',
      "shop     []                             1",
      "page 1/1, 2 in all",
      "",
    ].join("\n"),
  );
  assert.equal(table({ data: [], meta: { page: 1, total_pages: 0, total: 0 } }, 200), "(none)\npage 1/0, 0 in all\n");
  assert.equal(table({ site_id: "blog", claim_token: "t" }, 200), "site_id      blog\nclaim_token  t\n");
  assert.equal(table(null, 204), "done (204)\n");
});

test("exit codes follow the status", () => {
  assert.deepEqual(
    [200, 204, 400, 401, 403, 404, 409, 410, 429, 422, 500, 503].map(exitCodeOf),
    [0, 0, 4, 5, 5, 6, 7, 8, 9, 10, 11, 11],
  );
});
