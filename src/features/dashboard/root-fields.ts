// Which root fields a dashboard session may call on /graphql: those marked with
// `extensions: DASHBOARD_FIELD` (each checks the caller's role itself, access.ts). Every other
// root field (the visitor routes' operations, the operator's) answers only the operator token
// there; through the REST routes they stay as the route table declares them.
import { GraphQLError, type ASTVisitor, type ValidationContext } from "graphql";

/** The marker of a root field a dashboard session may call: `t.field({ …, extensions: DASHBOARD_FIELD })`. */
export const DASHBOARD_FIELD = { dashboard: true } as const;

/** A validation rule refusing any root field without the marker (introspection passes). */
export function dashboardFieldsOnly(context: ValidationContext): ASTVisitor {
  const schema = context.getSchema();
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]);
  return {
    Field(node) {
      const parent = context.getParentType();
      if (!parent || !roots.has(parent as never) || node.name.value.startsWith("__")) return;
      const field = context.getFieldDef();
      if (field && field.extensions.dashboard !== true)
        context.reportError(
          new GraphQLError(`${parent.name}.${field.name} needs the operator token.`, {
            nodes: node,
            extensions: { code: "operator-only", status: 403 },
          }),
        );
    },
  };
}
