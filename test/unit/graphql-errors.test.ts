import { test } from "node:test";
import assert from "node:assert/strict";
import { buildSchema, execute, parse } from "graphql";
import { DomainError } from "../../src/core/errors.ts";
import { throwFirstError } from "../../src/rest/graphql-errors.ts";

const schema = buildSchema(`
  input PollInput { maxSelections: Int }
  type Query { poll(input: PollInput!): Int, page(perPage: Int): Int }
`);

const run = (source: string, variableValues: Record<string, unknown>) =>
  execute({ schema, document: parse(source), variableValues, rootValue: { poll: () => 1, page: () => 1 } });

test("a variable beyond GraphQL Int is the client's 400 validation-error naming the body field", async () => {
  for (const value of [2147483648, 9007199254740993, 1e308]) {
    const result = await run("query($input: PollInput!) { poll(input: $input) }", { input: { maxSelections: value } });
    assert.throws(
      () => throwFirstError(result),
      (err: unknown) => {
        assert.ok(err instanceof DomainError);
        assert.equal(err.status, 400);
        assert.equal(err.code, "validation-error");
        assert.equal(err.extra.errors?.[0]?.field, "max_selections");
        assert.match(err.extra.errors![0]!.message, /Int cannot represent/);
        return true;
      },
    );
  }
  const top = await run("query($perPage: Int) { page(perPage: $perPage) }", { perPage: 2 ** 31 });
  assert.throws(
    () => throwFirstError(top),
    (err: any) => err.code === "validation-error" && err.extra.errors[0].field === "per_page",
  );
});

test("other errors are thrown as they are; a result without errors passes", () => {
  const failure = new DomainError("site-not-found", 404, "no");
  assert.throws(
    () => throwFirstError({ errors: [Object.assign(new Error("no"), { originalError: failure }) as never] }),
    failure,
  );
  assert.doesNotThrow(() => throwFirstError({ data: { poll: 1 } }));
});
