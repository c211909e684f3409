// The Pothos schema builder, with the Prisma plugin on the service's generated client.
import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import SimpleObjectsPlugin from "@pothos/plugin-simple-objects";
import type PrismaTypes from "../db/generated/pothos-types.ts";
import { getDatamodel } from "../db/generated/pothos-types.ts";
import type { GraphQLContext } from "./context.ts";

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    DateTime: { Input: Date; Output: Date };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [PrismaPlugin, SimpleObjectsPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.services.db,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
  },
});

builder.scalarType("JSON", {
  description: "Any JSON value.",
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.scalarType("DateTime", {
  description: "An instant, as an ISO-8601 string.",
  serialize: (value) => (value instanceof Date ? value.toISOString() : value),
  parseValue: (value) => new Date(String(value)),
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
