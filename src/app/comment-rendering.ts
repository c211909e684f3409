// A comment as the read API shows it, outside a request: what webhook events carry. The same
// GraphQL selection and wire form as the list read (MESSAGE_FIELDS, toWireMessage), with media
// URLs absolute against server.public_base_url (API-relative without one).
import { execute, parse } from "graphql";
import { MESSAGE_FIELDS, toWireMessage } from "../features/comments/schemas.ts";
import { commentLink } from "../features/sites/sites.ts";
import type { RenderComment } from "../features/webhooks/deliverer.ts";
import { schema } from "./graphql-schema.ts";
import { type ContextServices, createContext } from "../graphql/context.ts";

const COMMENT = parse(`query WebhookComment($siteId: String!, $pageSlug: String!, $eventId: String!) {
  comment(siteId: $siteId, pageSlug: $pageSlug, eventId: $eventId) { ...MessageFields }
}${MESSAGE_FIELDS}`);

/** `services()`: the built services (the renderer is made before they are complete). */
export const commentRenderer =
  (services: () => ContextServices): RenderComment =>
  async (siteId, pageSlug, eventId) => {
    const built = services();
    const pattern = await built.sites.pageUrlPatternFor(siteId);
    if (eventId === null) return { comment: null, link: commentLink(pattern, pageSlug, null) };
    const result = await execute({
      schema,
      document: COMMENT,
      variableValues: { siteId, pageSlug, eventId },
      contextValue: createContext(built, null, built.config.server.publicBaseUrl),
    });
    if (result.errors?.length) throw result.errors[0];
    const comment = (result.data as { comment: Parameters<typeof toWireMessage>[0] | null }).comment;
    return { comment: comment && toWireMessage(comment), link: commentLink(pattern, pageSlug, eventId) };
  };
