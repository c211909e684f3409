// The visitor-write mutations, derived from the operations' declarations: one generic
// registration, `<mutation>(input: <Mutation>Input!)`, a thin door into the write pipeline
// (src/writes/pipeline.ts), which runs every check. REST routes run these in-process.
import { builder } from "../graphql/builder.ts";
import { SubmissionAccepted } from "./graphql.ts";
import {
  VISITOR_WRITE_EXTENSION,
  type AnyWriteOperation,
  type FieldType,
  type InputFields,
  type SiteProofInput,
  type WriteOperation,
} from "./operation.ts";

type Types = PothosSchemaTypes.ExtendDefaultTypes<
  typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never
>;
type FieldBuilder = PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">;

const field = (t: FieldBuilder, type: FieldType) =>
  ({
    String: () => t.string(),
    "String!": () => t.string({ required: true }),
    Int: () => t.int(),
    "[String!]!": () => t.stringList({ required: true }),
    JSON: () => t.field({ type: "JSON" }),
  })[type]();

/** `<Mutation>Input`: site, page (for a page write), the operation's own fields, the author proof. */
function inputType(operation: AnyWriteOperation) {
  const fields: InputFields = operation.fields;
  return builder.inputType(`${operation.mutation[0]!.toUpperCase()}${operation.mutation.slice(1)}Input`, {
    fields: (t) => ({
      siteId: t.string({ required: true }),
      ...(operation.level === "page" ? { pageSlug: t.string({ required: true }) } : {}),
      ...Object.fromEntries(Object.entries(fields).map(([name, type]) => [name, field(t, type)])),
      authorPublicKey: t.string({ required: true }),
      authorSignature: t.string({ required: true }),
      challengeResponse: t.string({ required: true }),
    }),
  });
}

/**
 * The operation's input from the mutation's arguments: GraphQL checked them against the input
 * type the operation's declarations made (inputType), and leaves absent optional fields out,
 * which operations take as null.
 */
const withNulls = <Input extends SiteProofInput>(operation: WriteOperation<Input, unknown>, input: object): Input =>
  ({
    ...Object.fromEntries(Object.keys(operation.fields).map((f) => [f, null])),
    ...input,
  }) as unknown as Input;

/** Registers one mutation per operation, in the given order (the schema's). */
export function registerVisitorWrites(operations: AnyWriteOperation[]): void {
  for (const operation of operations) {
    const input = inputType(operation);
    builder.mutationField(operation.mutation, (t) =>
      operation.answer === "result"
        ? t.field({
            type: operation.output,
            description: operation.description,
            extensions: { [VISITOR_WRITE_EXTENSION]: true },
            args: { input: t.arg({ type: input, required: true }) },
            resolve: async (_root, args, ctx) => {
              const body = ctx.request?.rawBody ?? Buffer.alloc(0);
              const { result, replayed } = await ctx.services.writes.perform(
                operation,
                { ...withNulls(operation, args.input), body },
                ctx.idempotency,
                ctx.checkedSite,
              );
              return { ...result, replayed };
            },
          })
        : t.field({
            type: SubmissionAccepted,
            description: operation.description,
            extensions: { [VISITOR_WRITE_EXTENSION]: true },
            args: { input: t.arg({ type: input, required: true }) },
            resolve: (_root, args, ctx) =>
              ctx.services.writes.accept(operation, withNulls(operation, args.input), ctx.idempotency, ctx.checkedSite),
          }),
    );
  }
}
