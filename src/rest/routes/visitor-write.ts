// The shape every visitor-write route shares: a GraphQL mutation of the write pipeline, its
// variables taken from path, query and body (snake_case → the input's camelCase), and a
// 202 {submission_id} or 204 answer. A route declares only what differs.
import type { Auth, Method, OperationRoute, RouteInput } from "../route.ts";
import { ref, type JSONSchema } from "../schemas.ts";

export interface VisitorWriteSpec {
  operationId: string;
  method: Method;
  path: string;
  tag: string;
  summary: string;
  description: string;
  auth: Extract<Auth, "author-proof" | "site-write">;
  /** The GraphQL mutation and its input type (src/graphql/types/visitor-writes.ts). */
  mutation: string;
  answer: "submission" | "no-content";
  idempotencyKey: boolean;
  params: Record<string, JSONSchema & { description?: string }>;
  query?: OperationRoute["query"];
  body: JSONSchema;
  /** Problem codes beyond the ones every visitor write can give. */
  problems: Record<number, string[]>;
}

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Path parameters, declared query parameters and body fields, as the mutation's input. */
export const writeInput = (input: RouteInput): Record<string, unknown> =>
  Object.fromEntries(Object.entries({ ...input.params, ...input.query, ...input.body }).map(([k, v]) => [camel(k), v]));

/** What every visitor write can answer, whatever the operation. */
function commonProblems(spec: VisitorWriteSpec): Record<number, string[]> {
  const problems: Record<number, string[]> = {
    400: ["validation-error", ...(spec.idempotencyKey ? ["idempotency-key-required", "invalid-idempotency-key"] : [])],
    403: [...(spec.auth === "site-write" ? ["origin-not-allowed", "signature-required", "invalid-request-signature"] : []), "invalid-signature", "invalid-PoW"],
    404: ["site-not-found"],
    409: spec.idempotencyKey ? ["idempotency-key-reused"] : [],
    410: ["site-retired", "page-retired"],
    429: ["rate-limited"],
  };
  for (const [status, codes] of Object.entries(spec.problems)) problems[Number(status)] = [...(problems[Number(status)] ?? []), ...codes];
  return Object.fromEntries(Object.entries(problems).filter(([, codes]) => codes.length > 0));
}

export function visitorWriteRoute(spec: VisitorWriteSpec): OperationRoute {
  const inputType = `${spec.mutation[0]!.toUpperCase()}${spec.mutation.slice(1)}Input`;
  return {
    kind: "operation",
    operationId: spec.operationId,
    method: spec.method,
    path: spec.path,
    tag: spec.tag,
    summary: spec.summary,
    description: spec.description,
    auth: spec.auth,
    rateLimit: "commentWrite",
    idempotencyKey: spec.idempotencyKey,
    params: spec.params,
    query: spec.query,
    body: { schema: spec.body, optional: false },
    document: `mutation ${spec.operationId}($input: ${inputType}!) { ${spec.mutation}(input: $input) { submission_id: submissionId replayed } }`,
    variables: (input) => ({ input: writeInput(input) }),
    respond: (data) => {
      const result = data[spec.mutation] as { submission_id: string; replayed: boolean };
      const headers = result.replayed ? { "Idempotent-Replayed": "true" } : undefined;
      return spec.answer === "submission" ? { status: 202, body: { submission_id: result.submission_id }, headers } : { status: 204, headers };
    },
    responses:
      spec.answer === "submission"
        ? { 202: { description: "Queued: durably stored and sendable, not yet in Matrix (or the replay of an earlier identical request).", schema: ref("SubmissionAccepted") } }
        : { 204: { description: "Queued (also when it changes nothing)." } },
    problems: commonProblems(spec),
  };
}
