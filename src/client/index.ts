/// <reference lib="dom" />
// The comment service's client SDK: one ES module for browsers and Node 20.
//
//   const client = await CommentsClient.connect({ baseUrl, site, keyStore: indexedDbKeyStore() });
//   const list = new CommentList(client, "my-page", render);
//   await list.start();
//   await client.postComment("my-page", { content: "Hello", displayName: "Ada" });
export { CommentsClient, type ClientOptions, type WriteOptions, type Relations, type Formatting } from "./client.ts";
export { markdownToHtml } from "./markdown.ts";
export { HTML_FORMAT } from "../contract/matrix-vocabulary.ts";
export { CommentList, type CommentNode, type ListOrder } from "./comment-list.ts";
export { Identity, memoryKeyStore, indexedDbKeyStore, fileKeyStore, type KeyStore } from "./identity.ts";
export { LiveConnection, type LiveHandlers, type LiveStatus } from "./live.ts";
export { ApiError, DEFAULT_RETRY, type RetryPolicy } from "./http.ts";
export { solvePow, solvePowSync } from "./pow.ts";
export { signatureArrays, canonicalBytes } from "../contract/signatures.ts";
export type * from "./types.ts";
