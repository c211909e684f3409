// prisma/schema.prisma is the one source schema (SQLite). The PostgreSQL schema is derived
// from it: same models, another datasource and client output, no Pothos generator (its types
// come from the source schema). A test checks the committed derived file is current.

export function derivePostgresSchema(source: string): string {
  const withoutPothos = source.replace(/\ngenerator pothos \{[^}]*\}\n/, "\n");
  const derived = withoutPothos
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace(/url\s*=\s*"file:[^"]*"/, 'url      = "postgresql://localhost/unused"')
    .replace('output     = "../src/db/generated/sqlite"', 'output     = "../../src/db/generated/postgres"');
  if (derived === withoutPothos)
    throw new Error("prisma/schema.prisma no longer has the expected datasource/generator lines");
  return "// GENERATED from prisma/schema.prisma by `npm run generate`; do not edit.\n" + derived;
}
