// The canonical signature arrays of the wire contract (shared/contract.md, "Author proof
// encoding"): one per write kind, signed as the UTF-8 bytes of JSON.stringify(array). The one
// declaration: the service's operations verify with these, the SDK signs with them.
// `challenge` is the challenge prefix (the part of challenge_response before "|"); absent
// relations are null; comment ids and reaction keys are signed decoded.

type Id = string | null;

export const signatureArrays = {
  queryComments: (site: string, page: string) => ["QUERY_COMMENTS", site, page],
  postComment: (
    site: string,
    page: string,
    contentOrMediaUrl: string,
    replyTo: Id,
    threadRoot: Id,
    challenge: string,
  ) => ["POST_COMMENT", site, page, contentOrMediaUrl, replyTo, threadRoot, challenge, 1],
  editComment: (site: string, page: string, commentId: string, content: string, challenge: string) => [
    "EDIT_COMMENT",
    site,
    page,
    commentId,
    content,
    challenge,
    1,
  ],
  deleteComment: (site: string, page: string, commentId: string, challenge: string) => [
    "DELETE_COMMENT",
    site,
    page,
    commentId,
    challenge,
    1,
  ],
  createPoll: (
    site: string,
    page: string,
    question: string,
    options: string[],
    maxSelections: number,
    replyTo: Id,
    threadRoot: Id,
    challenge: string,
  ) => ["CREATE_POLL", site, page, [question, options, maxSelections], replyTo, threadRoot, challenge, 1],
  react: (site: string, page: string, commentId: string, key: string, challenge: string) => [
    "REACT",
    site,
    page,
    commentId,
    key,
    challenge,
    1,
  ],
  unreact: (site: string, page: string, commentId: string, key: string, challenge: string) => [
    "UNREACT",
    site,
    page,
    commentId,
    key,
    challenge,
  ],
  vote: (site: string, page: string, pollId: string, optionId: string, challenge: string) => [
    "VOTE",
    site,
    page,
    pollId,
    optionId,
    challenge,
    1,
  ],
  locate: (site: string, page: string, geoUri: string, replyTo: Id, threadRoot: Id, challenge: string) => [
    "LOCATE",
    site,
    page,
    geoUri,
    replyTo,
    threadRoot,
    challenge,
    1,
  ],
  upload: (
    site: string,
    page: string,
    mime: string,
    filename: string | null,
    bodySha256Hex: string,
    challenge: string,
  ) => ["UPLOAD", site, page, mime, filename, bodySha256Hex, challenge],
  uploadAvatar: (site: string, mime: string, bodySha256Hex: string, challenge: string) => [
    "UPLOAD_AVATAR",
    site,
    mime,
    bodySha256Hex,
    challenge,
  ],
  deleteAvatar: (site: string, challenge: string) => ["DELETE_AVATAR", site, challenge],
} as const;

/** The signed bytes: compact JSON exactly as JSON.stringify writes it. */
export const canonicalBytes = (array: readonly unknown[]): Uint8Array =>
  new TextEncoder().encode(JSON.stringify(array));
