import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { derivePostgresSchema } from "../../src/db/schema-derivation.ts";

const source = readFileSync(new URL("../../prisma/schema.prisma", import.meta.url), "utf8");
const derived = derivePostgresSchema(source);

/** The body of the first `<kind> <name> { … }` block. */
function block(text: string, header: string): string | null {
  const match = new RegExp(`\\n${header} \\{([^}]*)\\}`).exec(`\n${text}`);
  return match ? match[1]! : null;
}

describe("derivePostgresSchema on prisma/schema.prisma", () => {
  test("the source is the SQLite schema with a Pothos generator", () => {
    assert.match(block(source, "datasource db")!, /provider\s*=\s*"sqlite"/);
    assert.notEqual(block(source, "generator pothos"), null);
  });

  test("datasource provider is postgresql", () => {
    const datasource = block(derived, "datasource db");
    assert.ok(datasource);
    assert.match(datasource, /provider\s*=\s*"postgresql"/);
    assert.doesNotMatch(datasource, /sqlite/);
    assert.doesNotMatch(datasource, /file:/);
  });

  test("client output is ../../src/db/generated/postgres", () => {
    const client = block(derived, "generator client");
    assert.ok(client);
    assert.match(client, /output\s*=\s*"\.\.\/\.\.\/src\/db\/generated\/postgres"/);
    assert.doesNotMatch(client, /generated\/sqlite/);
  });

  test("no generator pothos block", () => {
    assert.equal(block(derived, "generator pothos"), null);
    assert.doesNotMatch(derived, /prisma-pothos-types/);
  });

  test("every model of the source appears, unchanged", () => {
    const models = source.match(/^model \w+ \{[^}]*\}/gm) ?? [];
    assert.ok(models.length >= 10, `found ${models.length} models`);
    for (const model of models) assert.ok(derived.includes(model), model.split("\n")[0]);
    const derivedModels = derived.match(/^model \w+ \{/gm) ?? [];
    assert.equal(derivedModels.length, models.length);
  });

  test("every block but the datasource and the generators is kept, unchanged", () => {
    const kept = (source.match(/^\w+ \w+ \{[^}]*\}/gm) ?? []).filter(
      (block) => !/^(datasource|generator) /.test(block),
    );
    assert.ok(kept.length >= 10, `found ${kept.length} blocks`);
    for (const block of kept) assert.ok(derived.includes(block), block.split("\n")[0]);
  });

  test("starts with the generated-file banner", () => {
    assert.ok(derived.startsWith("// GENERATED from prisma/schema.prisma"));
  });

  test("the committed prisma/postgres/schema.prisma is current", () => {
    const committed = readFileSync(new URL("../../prisma/postgres/schema.prisma", import.meta.url), "utf8");
    assert.equal(committed, derived);
  });
});

test("a source without the expected datasource/generator lines is refused", () => {
  assert.throws(
    () => derivePostgresSchema('datasource db {\n  provider = "mysql"\n}\nmodel A {\n  id Int @id\n}\n'),
    /expected datasource\/generator/,
  );
});
