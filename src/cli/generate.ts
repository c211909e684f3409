// npm run generate: rewrites every generated artifact from its source:
//   schema/schema.graphql      from the Pothos schema
//   openapi/openapi.json       from the route table
//   src/client/api-types.ts    from the OpenAPI document (the SDK's request and response types)
//   prisma/postgres/schema.prisma from prisma/schema.prisma (then both Prisma clients)
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { generatedArtifacts } from "./artifacts.ts";
import { generateClients } from "../db/prisma-cli.ts";

const root = resolve(import.meta.dirname, "../..");
for (const [path, content] of Object.entries(await generatedArtifacts())) {
  const file = resolve(root, path);
  mkdirSync(dirname(file), { recursive: true });
  let current: string | null = null;
  try {
    current = readFileSync(file, "utf8");
  } catch {}
  if (current !== content) {
    writeFileSync(file, content);
    console.log(`wrote ${path}`);
  }
}
generateClients();
