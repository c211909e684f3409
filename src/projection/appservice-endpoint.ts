// The appservice API the homeserver calls (Matrix application service API, not our REST
// surface, so errors use Matrix's errcode format).
import { bearerToken } from "../security/bearer.ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Projector } from "./projector.ts";
import { secretsEqual } from "../security/secret-equal.ts";
import { transactionEntries } from "./transaction-entries.ts";

/** What the endpoint uses (the composition root provides it). */
export interface AppserviceServices {
  config: { matrix: { hsToken: string } };
  projector: Pick<Projector, "applyTransaction" | "recordRejected">;
  log: (message: string) => void;
}

const TRANSACTION = /^\/_matrix\/app\/v1\/transactions\/([^/]+)$/;

export function matrixError(res: ServerResponse, status: number, errcode: string, error: string): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ errcode, error }));
}

function authorized(services: AppserviceServices, req: IncomingMessage, query: URLSearchParams): boolean {
  let header: string | null;
  try {
    header = bearerToken(req.headers.authorization);
  } catch {
    return false;
  }
  const presented = header ?? query.get("access_token") ?? "";
  const expected = services.config.matrix.hsToken;
  return secretsEqual(presented, expected);
}

/**
 * `readBody` is called only once the homeserver token checks out, so nobody else can make the
 * service buffer a transaction-sized body; it resolves null when it has answered itself (413).
 */
export async function handleAppservice(
  services: AppserviceServices,
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  readBody: () => Promise<Buffer | null>,
): Promise<void> {
  const [path, search] = target.split("?") as [string, string | undefined];
  if (!authorized(services, req, new URLSearchParams(search ?? ""))) {
    matrixError(res, 403, "M_FORBIDDEN", "Bad homeserver token");
    return;
  }
  const body = await readBody();
  if (!body) return;
  const txn = TRANSACTION.exec(path);
  if (txn && req.method === "PUT") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch {
      matrixError(res, 400, "M_NOT_JSON", "Body is not JSON");
      return;
    }
    const { events, ephemeral, rejected } = transactionEntries(txn[1]!, parsed);
    try {
      for (const entry of rejected) {
        services.log(`projection: transaction ${txn[1]}: skipped ${entry.key}: ${entry.reason}`);
        await services.projector.recordRejected(entry.key, entry, entry.reason);
      }
      await services.projector.applyTransaction(events, ephemeral);
    } catch (err) {
      // The database failed (an unapplyable event does not throw): not acknowledged, so the
      // homeserver retries the transaction.
      services.log(`projection: transaction ${txn[1]} failed: ${(err as Error).stack ?? err}`);
      matrixError(res, 500, "M_UNKNOWN", "Projection failed");
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end("{}");
    return;
  }
  if (path === "/_matrix/app/v1/ping" && req.method === "POST") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end("{}");
    return;
  }
  // Users and aliases are created explicitly, never on demand.
  matrixError(res, 404, "M_NOT_FOUND", "Not found");
}
