// The visitor-write mutations, derived from the writes the route table runs (each route entry
// names its operation; src/writes/mutations.ts registers them). graphql-schema.ts imports this
// module where they belong among the mutations; a new visitor write needs no entry here.
import { registerVisitorWrites } from "../writes/mutations.ts";
import { visitorWrites } from "./route-table.ts";

registerVisitorWrites(visitorWrites);
