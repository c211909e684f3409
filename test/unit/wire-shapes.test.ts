// Every response shape is declared once, as its JSON Schema (the features' schemas.ts); the
// GraphQL object types the REST routes select from must agree with it: a member for each of the
// schema's properties (snake_case there, camelCase in GraphQL), null or absent exactly where the
// GraphQL field is nullable, a list where the schema has an array, and the nested objects alike.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  getNamedType,
  getNullableType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLObjectType,
} from "graphql";
import { schema } from "../../src/app/graphql-schema.ts";
import { apiComponents } from "../../src/app/api-components.ts";

type Schema = Record<string, any>;
const components = apiComponents as Record<string, Schema>;

interface Pair {
  /** The component, or a path into it (e.g. "PendingOwnershipTransfer.transfer"). */
  shape: string;
  /** The GraphQL object type the routes select it from. */
  type: string;
  /** Fields of that type the route does not select. */
  graphqlOnly?: string[];
  /** A field of that type whose object's members the route answers at the shape's top level. */
  spread?: string;
}

/** Per GraphQL type, the JSON members whose field is not their camelCase name. */
const RENAMED: Record<string, Record<string, string>> = {
  Site: { site_id: "id" },
  SystemMessage: { content_json: "content" },
  OwnershipTransfer: { transfer_id: "id" },
};

/**
 * GraphQL fields a REST shape leaves out wherever the type appears: a personalized read's
 * `pending` shows its author their own held comment (id, status, time); its page, kind, key,
 * reason and reviewer are the dashboards'.
 */
const GRAPHQL_ONLY_BY_TYPE: Record<string, string[]> = {
  HeldComment: ["pageSlug", "kind", "authorPublicKey", "reason", "reviewedBy"],
};

/** Components no GraphQL type gives: the routes build them. */
const BUILT_BY_ROUTES = {
  Problem: "the adapter's problem documents",
  LiveEvent: "the SSE route's frames",
  PageRetiring: "the page retirement route's answer",
  RoomRetiring: "the room retirement route's answer",
};

// `replayed` is the write's replay flag, which the route answers as the Idempotent-Replayed header.
const PAIRS: Pair[] = [
  { shape: "Message", type: "Message" },
  { shape: "MessagePage", type: "CommentPage" },
  { shape: "PageCount", type: "PageCount" },
  { shape: "SiteSettings", type: "SiteSettings" },
  { shape: "WebhookEndpoint", type: "WebhookEndpoint" },
  // Creating an endpoint and rotating its secret answer the endpoint's members beside the secret.
  { shape: "WebhookEndpointWithSecret", type: "WebhookEndpointSecret", spread: "endpoint" },
  { shape: "WebhookDelivery", type: "WebhookDelivery" },
  // The cookie is the route's Set-Cookie header, not a body field.
  { shape: "DashboardSession", type: "DashboardSession", graphqlOnly: ["cookie"] },
  { shape: "PaginationMeta", type: "PaginationMeta" },
  { shape: "SubmissionAccepted", type: "SubmissionAccepted", graphqlOnly: ["replayed"] },
  { shape: "MediaUpload", type: "MediaUpload", graphqlOnly: ["replayed"] },
  { shape: "Challenge", type: "Challenge" },
  { shape: "Health", type: "Health" },
  { shape: "SiteClaimToken", type: "SiteClaimToken" },
  { shape: "SiteSecret", type: "SiteSecret" },
  { shape: "VerificationStart", type: "OriginVerification" },
  { shape: "VerifiedOrigins", type: "Site", graphqlOnly: ["source", "status", "spaceRoomId", "createdAt", "origins"] },
  { shape: "SystemMessage", type: "SystemMessage" },
  { shape: "RoomInfo", type: "RoomInfo" },
  { shape: "RoleMember", type: "RoleMember" },
  { shape: "PageRoles", type: "PageRoles" },
  { shape: "PageModerators", type: "PageRoles", graphqlOnly: ["siteId", "pageSlug", "admins", "managers"] },
  { shape: "SiteRoles", type: "SiteRoles" },
  { shape: "OperatorSite", type: "OperatorSite" },
  { shape: "OperatorSitePage", type: "OperatorSitePage" },
  { shape: "SiteConfigSnippet", type: "SiteConfigSnippet" },
  // The retirement routes build their path answers from these two.
  { shape: "RetirementState", type: "RetirementState", graphqlOnly: ["siteId", "pageSlug"] },
  { shape: "StickerImage", type: "StickerImage" },
  { shape: "StickerPack", type: "StickerPack" },
  { shape: "StickerPacks", type: "StickerPacks" },
  { shape: "VisitorProfile", type: "VisitorProfile" },
  { shape: "VisitorAvatar", type: "VisitorAvatarResult", graphqlOnly: ["replayed"] },
  // The claim routes answer the claim without naming its site, page and role kind.
  { shape: "PendingRoleClaim", type: "PendingRoleClaim", graphqlOnly: ["siteId", "pageSlug", "role"] },
  { shape: "RevokedRole", type: "RevokedRole" },
  // The transfer route answers the claim's members (PendingRoleClaim above) beside `transfer`.
  { shape: "PendingOwnershipTransfer.transfer", type: "OwnershipTransfer" },
  { shape: "RoomUpgrade", type: "RoomUpgrade" },
  { shape: "RoomUpgradeIntentPage", type: "RoomUpgradeIntentPage" },
  { shape: "QuarantinedRoomPage", type: "QuarantinedRoomPage" },
  { shape: "ProjectionRepairPage", type: "ProjectionRepairPage" },
  { shape: "ImportJob", type: "ImportJob" },
];

/** Components whose `data` is the list a query field answers (the route wraps it). */
const LISTS = [
  { shape: "PageCounts", field: "pageCounts" },
  { shape: "WebhookEndpointList", field: "webhooks" },
  { shape: "WebhookDeliveryList", field: "webhookDeliveries" },
];

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
/** The field of `type` that gives the JSON member `name`. */
const fieldNameIn = (type: GraphQLObjectType, name: string) => RENAMED[type.name]?.[name] ?? camel(name);

/** The components the checks reached, by reference or by a pair. */
const checked = new Set<string>();

function resolve(member: Schema): Schema {
  const target = member.$ref as string | undefined;
  if (!target) return member;
  const name = target.slice(target.lastIndexOf("/") + 1);
  checked.add(name);
  return components[name]!;
}

function shapeAt(path: string): Schema {
  const [name, ...members] = path.split(".");
  return members.reduce((shape, member) => resolve(shape.properties[member]), components[name!]!);
}

const types = (member: Schema): unknown[] => [member.type ?? []].flat();
const mayBeNull = (member: Schema) => types(member).includes("null") || (member.enum ?? []).includes(null);

/** What a JSON Schema scalar may be in GraphQL (BigInt-backed integers are Float). */
const SCALARS: Record<string, string[]> = {
  string: ["String", "DateTime"],
  integer: ["Int", "Float"],
  boolean: ["Boolean"],
};

/** Disagreements between a JSON Schema object and a GraphQL object type, with their paths. */
function compare(shape: Schema, type: GraphQLObjectType, where: string, graphqlOnly: string[] = []): string[] {
  const problems: string[] = [];
  const fields = type.getFields();
  const properties: Record<string, Schema> = shape.properties ?? {};
  const required: string[] = shape.required ?? [];
  const named = new Set<string>();
  for (const [name, declared] of Object.entries(properties)) {
    const fieldName = fieldNameIn(type, name);
    named.add(fieldName);
    const field: GraphQLField<unknown, unknown> | undefined = fields[fieldName];
    if (!field) problems.push(`${where}.${name}: no GraphQL field ${type.name}.${fieldName}`);
    else
      problems.push(
        ...compareMember(declared, required.includes(name), field, `${type.name}.${fieldName}`, `${where}.${name}`),
      );
  }
  const leftOut = [...graphqlOnly, ...(GRAPHQL_ONLY_BY_TYPE[type.name] ?? [])];
  for (const name of Object.keys(fields)) {
    if (!named.has(name) && !leftOut.includes(name))
      problems.push(`${where}: GraphQL field ${type.name}.${name} is not in the schema`);
  }
  return problems;
}

/** Disagreements between one member of a JSON Schema object (`at`) and the GraphQL field `fieldName`. */
function compareMember(
  declared: Schema,
  required: boolean,
  field: GraphQLField<unknown, unknown>,
  fieldName: string,
  at: string,
): string[] {
  const problems: string[] = [];
  const optional = !required || mayBeNull(declared);
  if (optional === isNonNullType(field.type))
    problems.push(`${at}: ${optional ? "may be absent or null" : "is required"} but ${fieldName} is ${field.type}`);
  const member = resolve(declared);
  const array = types(member).includes("array");
  const inner = getNullableType(field.type);
  if (array !== isListType(inner))
    problems.push(`${at}: ${array ? "an array" : "not an array"} but ${fieldName} is ${field.type}`);
  const element = array ? resolve(member.items ?? {}) : member;
  const target = getNamedType(field.type);
  if (isObjectType(target)) {
    if (!element.properties)
      problems.push(`${at}: an object type ${target.name} in GraphQL, no properties in the schema`);
    else problems.push(...compare(element, target, at));
  } else if (isScalarType(target)) {
    const allowed = types(element).flatMap((t) => SCALARS[String(t)] ?? []);
    if (allowed.length > 0 && !allowed.includes(target.name))
      problems.push(`${at}: ${types(element).join("|")} but ${fieldName} is ${target.name}`);
  }
  return problems;
}

/**
 * compare() for a shape holding the members of `type`'s object field `spread` beside `type`'s
 * other fields: each member is compared with the type that has its field.
 */
function compareSpread(shape: Schema, type: GraphQLObjectType, spread: string, where: string): string[] {
  const field = type.getFields()[spread];
  const target = field && getNamedType(field.type);
  if (!field || !isObjectType(target)) return [`${where}: no object field ${type.name}.${spread} to spread`];
  const spreadHas = (name: string) => fieldNameIn(target, name) in target.getFields();
  /** The shape's members the spread object has (or, with false, the others). */
  const part = (spreadOnes: boolean) => ({
    ...shape,
    required: (shape.required ?? []).filter((name: string) => spreadHas(name) === spreadOnes),
    properties: Object.fromEntries(
      Object.entries(shape.properties ?? {}).filter(([name]) => spreadHas(name) === spreadOnes),
    ),
  });
  return [
    ...(isNonNullType(field.type) ? [] : [`${where}: ${type.name}.${spread} may be null but the route spreads it`]),
    ...compare(part(true), target, where),
    ...compare(part(false), type, where, [spread]),
  ];
}

for (const pair of PAIRS) {
  test(`${pair.shape} agrees with GraphQL ${pair.type}`, () => {
    const type = schema.getType(pair.type);
    assert.ok(type && isObjectType(type), `no GraphQL object type ${pair.type}`);
    const shape = shapeAt(pair.shape);
    assert.deepEqual(
      pair.spread
        ? compareSpread(shape, type, pair.spread, pair.shape)
        : compare(shape, type, pair.shape, pair.graphqlOnly),
      [],
    );
    checked.add(pair.shape.split(".")[0]!);
  });
}

for (const list of LISTS) {
  test(`${list.shape} agrees with GraphQL Query.${list.field}`, () => {
    const shape = components[list.shape]!;
    const field = schema.getQueryType()?.getFields()[list.field];
    assert.ok(field, `no GraphQL query field ${list.field}`);
    assert.deepEqual(Object.keys(shape.properties), ["data"], "the list and nothing else");
    assert.deepEqual(
      compareMember(
        shape.properties.data,
        shape.required.includes("data"),
        field,
        `Query.${list.field}`,
        `${list.shape}.data`,
      ),
      [],
    );
    checked.add(list.shape);
  });
}

test("every component is checked, or built by the routes", () => {
  const unchecked = Object.keys(components).filter((name) => !checked.has(name) && !(name in BUILT_BY_ROUTES));
  assert.deepEqual(unchecked, []);
});

test("a drifted shape is reported", () => {
  const drifted = {
    ...components.MediaUpload!,
    required: ["url", "filename", "mimetype", "size"],
    properties: { ...components.MediaUpload!.properties, bytes: { type: "integer" } },
  };
  const type = schema.getType("MediaUpload") as GraphQLObjectType;
  assert.deepEqual(compare(drifted, type, "MediaUpload", ["replayed"]), [
    "MediaUpload.voice: may be absent or null but MediaUpload.voice is Boolean!",
    "MediaUpload.bytes: no GraphQL field MediaUpload.bytes",
  ]);
});

test("a drifted spread or list is reported", () => {
  const withSecret = components.WebhookEndpointWithSecret!;
  const drifted = {
    ...withSecret,
    required: withSecret.required.filter((name: string) => name !== "status"),
    properties: { ...withSecret.properties, signing_key: { type: "string" } },
  };
  const type = schema.getType("WebhookEndpointSecret") as GraphQLObjectType;
  assert.deepEqual(compareSpread(drifted, type, "endpoint", "WebhookEndpointWithSecret"), [
    "WebhookEndpointWithSecret.status: may be absent or null but WebhookEndpoint.status is String!",
    "WebhookEndpointWithSecret.signing_key: no GraphQL field WebhookEndpointSecret.signingKey",
  ]);
  const single = schema.getQueryType()!.getFields().webhook!;
  assert.deepEqual(
    compareMember(components.WebhookEndpointList!.properties.data, true, single, "Query.webhook", "data"),
    ["data: an array but Query.webhook is WebhookEndpoint!"],
  );
});
