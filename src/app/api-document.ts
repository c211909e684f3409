// The REST surface as served: the route table plus the OpenAPI document derived from it.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { buildOpenApi } from "../rest/openapi.ts";
import { buildRoutes } from "./route-table.ts";
import { apiComponents } from "./api-components.ts";

const { version } = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../package.json"), "utf8")) as {
  version: string;
};

let document: Record<string, unknown> | null = null;

export const apiRoutes = buildRoutes(() => openApiDocument());

export function openApiDocument(): Record<string, unknown> {
  document ??= buildOpenApi(apiRoutes, apiComponents, version);
  return document;
}
