// Wire-shape details GraphQL cannot express: members the API omits rather than sends as null.

interface WireMessage {
  submission_id?: string | null;
  author: { type: string; public_key?: string | null; mxid?: string | null };
  [key: string]: unknown;
}

/** submission_id only for API submissions; public_key for visitors, mxid for Matrix authors. */
export function toWireMessage<T extends WireMessage>(message: T): T {
  const { submission_id, ...rest } = message;
  const { public_key, mxid, ...author } = message.author;
  return {
    ...rest,
    ...(submission_id ? { submission_id } : {}),
    author: { ...author, ...(message.author.type === "visitor" ? { public_key } : { mxid }) },
  } as T;
}
