// Health and proof-of-work challenges.
import { builder } from "../../graphql/builder.ts";
import type { Challenges } from "../../writes/challenge-store.ts";
import type { Health as HealthCheck } from "./health.ts";

declare module "../../graphql/context.ts" {
  interface ContextServices {
    challenges: Challenges;
    health: HealthCheck;
  }
}

const Challenge = builder.simpleObject("Challenge", {
  fields: (t) => ({
    challenge: t.string(),
    difficulty: t.int(),
    algorithm: t.string(),
    expiresAt: t.field({ type: "DateTime" }),
  }),
});

builder.queryField("challenge", (t) =>
  t.field({
    type: Challenge,
    description: "A fresh proof-of-work challenge (valid 5 minutes, single use).",
    resolve: (_r, _a, ctx) => ctx.services.challenges.issue(),
  }),
);

const ComponentHealth = builder.simpleObject("ComponentHealth", {
  fields: (t) => ({ status: t.string({ description: '"ok" or "unavailable".' }), error: t.string({ nullable: true }) }),
});

const QueueHealth = builder.simpleObject("QueueHealth", {
  fields: (t) => ({
    status: t.string({ description: '"ok", or "stopped" when this instance runs no worker.' }),
    queued: t.int(),
    failed: t.int(),
    oldestQueuedAgeSeconds: t.int({ nullable: true }),
  }),
});

const Health = builder.simpleObject("Health", {
  fields: (t) => ({
    status: t.string({ description: '"ok", or "degraded" when the homeserver is unreachable.' }),
    database: t.field({ type: ComponentHealth }),
    homeserver: t.field({ type: ComponentHealth }),
    queue: t.field({ type: QueueHealth }),
  }),
});

builder.queryField("health", (t) => t.field({ type: Health, resolve: (_r, _a, ctx) => ctx.services.health.check() }));
