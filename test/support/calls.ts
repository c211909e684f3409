// JSON calls to a running service answered as { status, body }: what the route tests compare.
import assert from "node:assert/strict";

/** An answer with its JSON body parsed (null when it has none, as a 204). */
export interface Answer {
  status: number;
  body: any;
}

/** `method path` on `service` with `headers`, and `body` as JSON when there is one. */
export async function call(
  service: { url: string },
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? null : JSON.parse(text) };
}

/** The answer's body, asserting it is 200. */
export async function ok(pending: Answer | Promise<Answer>): Promise<any> {
  const { status, body } = await pending;
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}
