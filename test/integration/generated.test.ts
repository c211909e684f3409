// The generated artifacts are current, the OpenAPI document is valid, and the migrations
// bring the database exactly to the source schema.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import SwaggerParser from "@apidevtools/swagger-parser";
import { generatedArtifacts } from "../../src/cli/artifacts.ts";
import { MIGRATIONS_DIR, listMigrations } from "../../src/db/migrations.ts";
import { SOURCE_SCHEMA, diffSql } from "../../src/db/prisma-cli.ts";
import { derivePostgresSchema } from "../../src/db/schema-derivation.ts";
import { apiRoutes } from "../../src/rest/api-document.ts";
import { freshDatabase } from "../support/harness.ts";
import { postgresShape, sqliteShape } from "../support/schema-shape.ts";

const root = resolve(import.meta.dirname, "../..");

test("schema/, openapi/ and the derived PostgreSQL schema are current (run npm run generate)", async () => {
  for (const [path, expected] of Object.entries(await generatedArtifacts())) {
    assert.equal(readFileSync(join(root, path), "utf8"), expected, `${path} is stale: run npm run generate`);
  }
});

test("openapi/openapi.json passes OpenAPI 3.1 validation and covers every route", async () => {
  const document = JSON.parse(readFileSync(join(root, "openapi/openapi.json"), "utf8"));
  await SwaggerParser.validate(structuredClone(document));
  assert.equal(document.openapi, "3.1.0");
  for (const route of apiRoutes) {
    const key = route.method === "QUERY" ? "x-query" : route.method.toLowerCase();
    assert.equal(document.paths[route.path]?.[key]?.operationId, route.operationId, `${route.method} ${route.path}`);
  }
});

test("the migrations bring SQLite and PostgreSQL exactly to the source schema", async () => {
  const latest = listMigrations("sqlite").at(-1);
  assert.ok(latest, "there is at least one migration");
  const snapshot = readFileSync(join(MIGRATIONS_DIR, latest.name, "schema.prisma"), "utf8");
  assert.equal(snapshot, readFileSync(SOURCE_SCHEMA, "utf8"), "schema changed since the latest migration: npm run migration:create -- <name>");

  const work = mkdtempSync(join(tmpdir(), "schema-"));
  const postgresSchema = join(work, "postgres.prisma");
  writeFileSync(postgresSchema, derivePostgresSchema(snapshot));
  assert.deepEqual(sqliteShape(listMigrations("sqlite").map((m) => m.sql)), sqliteShape([diffSql(null, SOURCE_SCHEMA)]));
  const [migrated, direct] = [await freshDatabase("postgres"), await freshDatabase("postgres")];
  try {
    assert.deepEqual(
      await postgresShape(migrated.url, listMigrations("postgres").map((m) => m.sql)),
      await postgresShape(direct.url, [diffSql(null, postgresSchema)]),
    );
  } finally {
    await migrated.drop();
    await direct.drop();
  }
});
