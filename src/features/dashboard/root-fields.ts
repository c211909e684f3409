// Which root fields a dashboard session may call on /graphql: those marked with
// `extensions: DASHBOARD_FIELD` (each checks the caller's role itself, access.ts). Every other
// root field (the visitor routes' operations, the operator's) answers only the operator token
// there; through the REST routes they stay as the route table declares them. A caller with no
// credentials at all may only sign in (signInOnly).
import { GraphQLError, Kind, parse, type ASTVisitor, type ValidationContext } from "graphql";

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

/**
 * Whether a document (of an anonymous /graphql request) asks for nothing but the sign-in: each
 * operation a mutation whose root fields are all dashboardSignIn (or __typename). A document
 * that does not parse is no sign-in.
 */
export function signInOnly(query: string | undefined): boolean {
  let document: ReturnType<typeof parse>;
  try {
    document = parse(query ?? "");
  } catch {
    return false;
  }
  return document.definitions.every(
    (definition) =>
      definition.kind === Kind.OPERATION_DEFINITION &&
      definition.operation === "mutation" &&
      definition.selectionSet.selections.every(
        (selection) =>
          selection.kind === Kind.FIELD &&
          (selection.name.value === "dashboardSignIn" || selection.name.value === "__typename"),
      ),
  );
}
