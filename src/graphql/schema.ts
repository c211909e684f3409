// The GraphQL schema: every type module registers itself on the builder.
import { builder } from "./builder.ts";
import "./types/site.ts";
import "./types/verification.ts";
import "./types/message.ts";
import "./types/submission.ts";
import "./types/visitor-writes.ts";
import "./types/meta.ts";
import "./types/page-events.ts";
import "./types/room.ts";
import "./types/roles.ts";
import "./types/retirement.ts";
import "./types/operator-sites.ts";
import "./types/stickers.ts";
import "./types/visitor-profiles.ts";
import "./types/governance.ts";

export const schema = builder.toSchema({ sortSchema: false });
