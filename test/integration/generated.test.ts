// The generated artifacts are current, the OpenAPI document is valid OpenAPI 3.2 and passes
// Redocly's recommended ruleset, and the migrations bring the database exactly to the source
// schema.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { generatedArtifacts } from "../../src/cli/artifacts.ts";
import { MIGRATIONS_DIR, listMigrations } from "../../src/db/migrations.ts";
import { SOURCE_SCHEMA, diffSql } from "../../src/db/prisma-cli.ts";
import { derivePostgresSchema } from "../../src/db/schema-derivation.ts";
import { apiRoutes } from "../../src/app/api-document.ts";
import { freshDatabase } from "../support/harness.ts";
import { postgresShape, sqliteShape } from "../support/schema-shape.ts";

const root = resolve(import.meta.dirname, "../..");

test("schema/, openapi/ and the derived PostgreSQL schema are current (run npm run generate)", async () => {
  for (const [path, expected] of Object.entries(await generatedArtifacts())) {
    assert.equal(readFileSync(join(root, path), "utf8"), expected, `${path} is stale: run npm run generate`);
  }
});

test("openapi/openapi.json is valid OpenAPI 3.2, passes Redocly's recommended rules and covers every route", async (t) => {
  const source = readFileSync(join(root, "openapi/openapi.json"), "utf8");
  const document = JSON.parse(source);
  assert.equal(document.openapi, "3.2.0");
  // The recommended ruleset includes `struct`: the document's shape against OpenAPI 3.2.
  const problems = await lintFromString({
    source,
    absoluteRef: join(root, "openapi/openapi.json"),
    config: await createConfig({ extends: ["recommended"] }),
  });
  const line = (p: (typeof problems)[number]) => `${p.ruleId} at ${p.location[0]?.pointer ?? "?"}: ${p.message}`;
  const warnings = problems.filter((p) => p.severity === "warn");
  t.diagnostic(`redocly recommended: ${warnings.length} warning(s)`);
  for (const warning of warnings) t.diagnostic(`  ${line(warning)}`);
  assert.deepEqual(problems.filter((p) => p.severity === "error").map(line), []);
  for (const tag of document.tags)
    assert.ok(tag.description, `tag ${tag.name} has a description (TAGS in src/rest/openapi.ts)`);
  for (const route of apiRoutes) {
    const operation = document.paths[route.path]?.[route.method.toLowerCase()];
    assert.equal(operation?.operationId, route.operationId, `${route.method} ${route.path}`);
    for (const [status, codes] of Object.entries(route.problems)) {
      for (const code of codes)
        assert.ok(
          operation.responses[status]?.["x-problem-codes"]?.includes(code),
          `${route.operationId}: ${status} ${code} is documented`,
        );
    }
  }
});

test("the migrations bring SQLite and PostgreSQL exactly to the source schema", async () => {
  const latest = listMigrations("sqlite").at(-1);
  assert.ok(latest, "there is at least one migration");
  const snapshot = readFileSync(join(MIGRATIONS_DIR, latest.name, "schema.prisma"), "utf8");
  assert.equal(
    snapshot,
    readFileSync(SOURCE_SCHEMA, "utf8"),
    "schema changed since the latest migration: npm run migration:create -- <name>",
  );

  const work = mkdtempSync(join(tmpdir(), "schema-"));
  const postgresSchema = join(work, "postgres.prisma");
  writeFileSync(postgresSchema, derivePostgresSchema(snapshot));
  assert.deepEqual(
    sqliteShape(listMigrations("sqlite").map((m) => m.sql)),
    sqliteShape([diffSql(null, SOURCE_SCHEMA)]),
  );
  const [migrated, direct] = [await freshDatabase("postgres"), await freshDatabase("postgres")];
  try {
    assert.deepEqual(
      await postgresShape(
        migrated.url,
        listMigrations("postgres").map((m) => m.sql),
      ),
      await postgresShape(direct.url, [diffSql(null, postgresSchema)]),
    );
  } finally {
    await migrated.drop();
    await direct.drop();
  }
});
