// npm run migration:create -- <name>
// Diffs the schema snapshot of the latest migration against prisma/schema.prisma and writes a
// new migration folder with SQL for both providers and the new snapshot.
import { copyFileSync, mkdirSync, writeFileSync, readFileSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { MIGRATIONS_DIR, listMigrations } from "../db/migrations.ts";
import { SOURCE_SCHEMA, diffSql } from "../db/prisma-cli.ts";
import { derivePostgresSchema } from "../db/schema-derivation.ts";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run migration:create -- <name as [a-z0-9_]+>");
  process.exit(2);
}

const previous = listMigrations("sqlite").at(-1);
const work = mkdtempSync(join(tmpdir(), "migration-"));
const schemas = (source: string, tag: string) => {
  const sqlite = join(work, `${tag}-sqlite.prisma`);
  const postgres = join(work, `${tag}-postgres.prisma`);
  writeFileSync(sqlite, source);
  writeFileSync(postgres, derivePostgresSchema(source));
  return { sqlite, postgres };
};
const to = schemas(readFileSync(SOURCE_SCHEMA, "utf8"), "to");
const from = previous
  ? schemas(readFileSync(join(MIGRATIONS_DIR, previous.name, "schema.prisma"), "utf8"), "from")
  : null;

const sqlite = diffSql(from?.sqlite ?? null, to.sqlite);
const postgres = diffSql(from?.postgres ?? null, to.postgres);
if (!/\S/.test(sqlite.replace(/^--.*$/gm, ""))) {
  console.log("schema unchanged since the latest migration; nothing to do");
  process.exit(0);
}
const sequence = String(listMigrations("sqlite").length + 1).padStart(4, "0");
const dir = join(MIGRATIONS_DIR, `${sequence}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "sqlite.sql"), sqlite);
writeFileSync(join(dir, "postgres.sql"), postgres);
copyFileSync(SOURCE_SCHEMA, join(dir, "schema.prisma"));
console.log(`wrote ${dir}`);
