// Every response shape is declared once, as its JSON Schema (the features' schemas.ts); the
// GraphQL object types the REST routes select from must agree with it: a member for each of the
// schema's properties (snake_case there, camelCase in GraphQL), null or absent exactly where the
// GraphQL field is nullable, a list where the schema has an array, and the nested objects alike.
import { test } from "node:test";
import assert from "node:assert/strict";
import { getNamedType, getNullableType, isListType, isNonNullType, isObjectType, isScalarType, type GraphQLField, type GraphQLObjectType } from "graphql";
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
}

/** Per GraphQL type, the JSON members whose field is not their camelCase name. */
const RENAMED: Record<string, Record<string, string>> = {
  Site: { site_id: "id" },
  SystemMessage: { content_json: "content" },
  OwnershipTransfer: { transfer_id: "id" },
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
];

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

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
const SCALARS: Record<string, string[]> = { string: ["String", "DateTime"], integer: ["Int", "Float"], boolean: ["Boolean"] };

/** Disagreements between a JSON Schema object and a GraphQL object type, with their paths. */
function compare(shape: Schema, type: GraphQLObjectType, where: string, graphqlOnly: string[] = []): string[] {
  const problems: string[] = [];
  const fields = type.getFields();
  const properties: Record<string, Schema> = shape.properties ?? {};
  const required: string[] = shape.required ?? [];
  const named = new Set<string>();
  for (const [name, declared] of Object.entries(properties)) {
    const fieldName = RENAMED[type.name]?.[name] ?? camel(name);
    named.add(fieldName);
    const field: GraphQLField<unknown, unknown> | undefined = fields[fieldName];
    const at = `${where}.${name}`;
    if (!field) {
      problems.push(`${at}: no GraphQL field ${type.name}.${fieldName}`);
      continue;
    }
    const optional = !required.includes(name) || mayBeNull(declared);
    if (optional === isNonNullType(field.type)) problems.push(`${at}: ${optional ? "may be absent or null" : "is required"} but ${type.name}.${fieldName} is ${field.type}`);
    const member = resolve(declared);
    const array = types(member).includes("array");
    const inner = getNullableType(field.type);
    if (array !== isListType(inner)) problems.push(`${at}: ${array ? "an array" : "not an array"} but ${type.name}.${fieldName} is ${field.type}`);
    const element = array ? resolve(member.items ?? {}) : member;
    const target = getNamedType(field.type);
    if (isObjectType(target)) {
      if (!element.properties) problems.push(`${at}: an object type ${target.name} in GraphQL, no properties in the schema`);
      else problems.push(...compare(element, target, at));
    } else if (isScalarType(target)) {
      const allowed = types(element).flatMap((t) => SCALARS[String(t)] ?? []);
      if (allowed.length > 0 && !allowed.includes(target.name)) problems.push(`${at}: ${types(element).join("|")} but ${type.name}.${fieldName} is ${target.name}`);
    }
  }
  for (const name of Object.keys(fields)) {
    if (!named.has(name) && !graphqlOnly.includes(name)) problems.push(`${where}: GraphQL field ${type.name}.${name} is not in the schema`);
  }
  return problems;
}

for (const pair of PAIRS) {
  test(`${pair.shape} agrees with GraphQL ${pair.type}`, () => {
    const type = schema.getType(pair.type);
    assert.ok(type && isObjectType(type), `no GraphQL object type ${pair.type}`);
    assert.deepEqual(compare(shapeAt(pair.shape), type, pair.shape, pair.graphqlOnly), []);
    checked.add(pair.shape.split(".")[0]!);
  });
}

test("every component is checked, or built by the routes", () => {
  const unchecked = Object.keys(components).filter((name) => !checked.has(name) && !(name in BUILT_BY_ROUTES));
  assert.deepEqual(unchecked, []);
});

test("a drifted shape is reported", () => {
  const drifted = { ...components.MediaUpload!, required: ["url", "filename", "mimetype", "size"], properties: { ...components.MediaUpload!.properties, bytes: { type: "integer" } } };
  const type = schema.getType("MediaUpload") as GraphQLObjectType;
  assert.deepEqual(compare(drifted, type, "MediaUpload", ["replayed"]), [
    "MediaUpload.voice: may be absent or null but MediaUpload.voice is Boolean!",
    "MediaUpload.bytes: no GraphQL field MediaUpload.bytes",
  ]);
});
