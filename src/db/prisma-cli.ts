// Thin wrapper over the Prisma CLI (offline: JS engine, see prisma/prisma.config.ts).
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
export const SOURCE_SCHEMA = resolve(ROOT, "prisma/schema.prisma");
export const POSTGRES_SCHEMA = resolve(ROOT, "prisma/postgres/schema.prisma");

export function prisma(args: string[]): string {
  return execFileSync(
    resolve(ROOT, "node_modules/.bin/prisma"),
    [...args, "--config", resolve(ROOT, "prisma/prisma.config.ts")],
    {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
    },
  );
}

/** SQL that takes a database from schema `from` (a file, or empty) to schema `to`. */
export function diffSql(from: string | null, to: string): string {
  const fromArgs = from ? ["--from-schema-datamodel", from] : ["--from-empty"];
  return prisma(["migrate", "diff", ...fromArgs, "--to-schema-datamodel", to, "--script"]);
}

export function generateClients(): void {
  prisma(["generate", "--schema", SOURCE_SCHEMA]);
  prisma(["generate", "--schema", POSTGRES_SCHEMA]);
}
