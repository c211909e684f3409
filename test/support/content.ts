// Narrowing a Message's typed content in tests: the variant asked for, or a failed assertion.
import assert from "node:assert/strict";
import type { ContentType, MessageContent } from "../../src/contract/message-content.ts";

export function variantOf<T extends ContentType>(
  content: MessageContent,
  type: T,
): Extract<MessageContent, { type: T }> {
  assert.equal(content.type, type, `content of type ${type}`);
  return content as Extract<MessageContent, { type: T }>;
}
