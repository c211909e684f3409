// Prisma CLI configuration. The CLI is used only to generate the clients and to diff schemas
// into migration SQL (see src/db/migrations.ts); the service applies migrations itself.
// The JS engine with a driver adapter keeps the CLI offline (no native engine download).
import { defineConfig } from "prisma/config";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "schema.prisma",
  async adapter() {
    const { PrismaBetterSQLite3 } = await import("@prisma/adapter-better-sqlite3");
    return new PrismaBetterSQLite3({ url: "file::memory:" });
  },
});
