// The GraphQL schema: every type module registers itself on the builder.
import { builder } from "../graphql/builder.ts";
import "../features/sites/graphql.ts";
import "../features/verification/graphql.ts";
import "../features/comments/graphql.ts";
import "../writes/graphql.ts";
// The visitor writes' result types, then their mutations: the schema lists types and fields in registration order.
import "../features/visitors/graphql.ts";
import "../features/media/graphql.ts";
import "./write-mutations.ts";
import "../features/meta/graphql.ts";
import "../features/live/graphql.ts";
import "../features/rooms/graphql.ts";
import "../features/rooms/roles-graphql.ts";
import "../features/rooms/lifecycle-graphql.ts";
import "../features/repairs/graphql.ts";
import "../features/imports/graphql.ts";
import "../features/retirement/graphql.ts";
import "../features/operator/graphql.ts";
import "../features/stickers/graphql.ts";
import "../features/governance/graphql.ts";
import "../features/webhooks/graphql.ts";
import "../features/dashboard/graphql.ts";
import "../features/dashboard/operator-graphql.ts";
import "../features/moderation/graphql.ts";

export const schema = builder.toSchema({ sortSchema: false });
