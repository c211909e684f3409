// The shape every visitor-write route shares: the operation's GraphQL mutation (derived from its
// declaration, src/writes/mutations.ts), its variables taken from path, query and body
// (snake_case → the input's camelCase), and a 202 {submission_id} or 204 answer, or an
// immediate write's 200 result (uploads, whose body is raw bytes). A route declares only what differs.
import type { Auth, Method, OperationRoute, RawBody, RouteInput } from "./route.ts";
import type { RateLimitName } from "../config/limits.ts";
import { ref, type JSONSchema } from "./schemas.ts";
import type { AnyWriteOperation, SiteProofInput } from "../writes/operation.ts";
import type { WritePipeline } from "../writes/pipeline.ts";
import { parseIdempotencyKey } from "../security/idempotency.ts";

declare module "./route.ts" {
  interface RouteServices {
    /** A raw-body write's checks before its body is read (the write pipeline's admitBeforeBody). */
    writes: Pick<WritePipeline, "admitBeforeBody">;
  }
}

export interface VisitorWriteSpec {
  operationId: string;
  method: Method;
  path: string;
  tag: string;
  summary: string;
  description: string;
  auth: Extract<Auth, "author-proof" | "site-write">;
  /** The write it runs: its mutation, input type and answer (202, 204 or an immediate 200). */
  operation: AnyWriteOperation;
  /** An immediate write's 200 answer: its schema and the mutation's selection (snake_case aliases). */
  result?: { description: string; schema: JSONSchema; selection: string };
  idempotencyKey: boolean;
  params: Record<string, JSONSchema & { description?: string }>;
  query?: OperationRoute["query"];
  /**
   * A JSON body, or raw bytes, or none (the author proof then travels in the query). Raw bytes
   * are read only once the write pipeline's checks that need no bytes passed (admitBeforeBody).
   */
  body: JSONSchema | { raw: Omit<RawBody, "admit"> } | null;
  /** The route's rate-limit group; commentWrite (comment and visitor-avatar writes) when absent. */
  rateLimit?: RateLimitName;
  /** Problem codes beyond the ones every visitor write can give. */
  problems: Record<number, string[]>;
}

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Path parameters, declared query parameters and body fields, as the mutation's input. */
export const writeInput = (input: RouteInput): Record<string, unknown> =>
  Object.fromEntries(Object.entries({ ...input.params, ...input.query, ...input.body }).map(([k, v]) => [camel(k), v]));

/** The write pipeline's checks before a raw body is read, with the request's Idempotency-Key (none when malformed: refused later). */
const admitBeforeBody: RawBody["admit"] = (input, services) => {
  const header = input.headers["idempotency-key"];
  const proofInput = writeInput({ ...input, body: {} }) as unknown as SiteProofInput & { pageSlug?: string };
  return services.writes.admitBeforeBody(proofInput, header === undefined ? null : parseIdempotencyKey(header));
};

/** What every visitor write can answer, whatever the operation. */
function commonProblems(spec: VisitorWriteSpec): Record<number, string[]> {
  const problems: Record<number, string[]> = {
    400: ["validation-error", ...(spec.idempotencyKey ? ["idempotency-key-required", "invalid-idempotency-key"] : [])],
    403: [
      ...(spec.auth === "site-write" ? ["origin-not-allowed", "signature-required", "invalid-request-signature"] : []),
      "invalid-signature",
      "invalid-PoW",
      // Moderation (src/features/moderation/): a banned author; a page closed to new comments.
      "author-banned",
      ...("page_slug" in spec.params ? ["page-closed"] : []),
    ],
    404: ["site-not-found"],
    409: spec.idempotencyKey ? ["idempotency-key-reused"] : [],
    // A site-level write (avatars) has no page to retire.
    410: ["site-retired", ...("page_slug" in spec.params ? ["page-retired"] : [])],
    429: ["rate-limited"],
  };
  for (const [status, codes] of Object.entries(spec.problems))
    problems[Number(status)] = [...(problems[Number(status)] ?? []), ...codes];
  return Object.fromEntries(Object.entries(problems).filter(([, codes]) => codes.length > 0));
}

export function visitorWriteRoute(spec: VisitorWriteSpec): OperationRoute {
  const { mutation, answer } = spec.operation;
  const inputType = `${mutation[0]!.toUpperCase()}${mutation.slice(1)}Input`;
  const raw: RawBody | null =
    spec.body && "raw" in spec.body ? { ...(spec.body.raw as Omit<RawBody, "admit">), admit: admitBeforeBody } : null;
  const selection = answer === "result" ? spec.result!.selection : "submission_id: submissionId";
  return {
    kind: "operation",
    operationId: spec.operationId,
    method: spec.method,
    path: spec.path,
    tag: spec.tag,
    summary: spec.summary,
    description: spec.description,
    auth: spec.auth,
    rateLimit: spec.rateLimit ?? "commentWrite",
    idempotencyKey: spec.idempotencyKey,
    params: spec.params,
    query: spec.query,
    ...(raw ? { rawBody: raw } : spec.body ? { body: { schema: spec.body, optional: false } } : {}),
    document: `mutation ${spec.operationId}($input: ${inputType}!) { ${mutation}(input: $input) { ${selection} replayed } }`,
    variables: (input) => ({ input: writeInput(input) }),
    respond: (data) => {
      const { replayed, ...result } = data[mutation] as { replayed: boolean } & Record<string, unknown>;
      const headers = replayed ? { "Idempotent-Replayed": "true" } : undefined;
      if (answer === "no-content") return { status: 204, headers };
      return { status: answer === "submission" ? 202 : 200, body: result, headers };
    },
    write: spec.operation,
    responses: {
      submission: {
        202: {
          description:
            "Queued: durably stored and sendable, not yet in Matrix (or the replay of an earlier identical request).",
          schema: ref("SubmissionAccepted"),
        },
      },
      "no-content": { 204: { description: "Queued (also when it changes nothing)." } },
      result: { 200: { description: spec.result?.description ?? "", schema: spec.result?.schema } },
    }[answer],
    problems: commonProblems(spec),
  };
}
