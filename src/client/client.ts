// The SDK's entry point: every read and write of a visitor on one site. Writes carry the
// author proof over the contract's canonical array, with a challenge fetched and solved just
// before the request; writes the API keys idempotently get one Idempotency-Key per call.
import { Http, DEFAULT_RETRY, ApiError, type RetryPolicy } from "./http.ts";
import { Identity, type KeyStore } from "./identity.ts";
import { solvePow } from "./pow.ts";
import { signatureArrays } from "../contract/signatures.ts";
import { LiveConnection, type LiveHandlers } from "./live.ts";
import { markdownToHtml } from "./markdown.ts";
import { HTML_FORMAT } from "../contract/matrix-vocabulary.ts";
import type {
  Challenge,
  CreatePollBody,
  EditCommentBody,
  ListQuery,
  MediaUpload,
  MessagePage,
  PageCount,
  PageModerators,
  PageRoles,
  PostCommentBody,
  PostLocationBody,
  RoomInfo,
  SiteRoles,
  StickerPack,
  SubmissionAccepted,
  VisitorProfile,
} from "./types.ts";

export interface ClientOptions {
  /** The service's base URL, e.g. https://comments.example (no trailing slash). */
  baseUrl: string;
  site: string;
  identity: Identity;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
}

export interface WriteOptions {
  signal?: AbortSignal;
  /** The Idempotency-Key of this logical action; by default a new one per call. */
  idempotencyKey?: string;
}

export interface Relations {
  replyTo?: string | null;
  threadRoot?: string | null;
}

/**
 * A text's rich form: `markdown: true` converts the text (Markdown) to its HTML; `formattedBody`
 * gives the HTML itself. Either goes as the event's org.matrix.custom.html formatted_body, unsigned
 * beside the signed text.
 */
export interface Formatting {
  markdown?: boolean;
  formattedBody?: string | null;
}

/** The body fields of a text's HTML, if it has one. */
function formattedFields(text: string | undefined, formatting: Formatting) {
  const html = formatting.formattedBody ?? (formatting.markdown && text ? markdownToHtml(text) : null);
  return html ? { format: HTML_FORMAT, formatted_body: html } : {};
}

type Proof = { author_public_key: string; author_signature: string; challenge_response: string };

interface Write {
  method: string;
  path: string;
  /** Whether the route takes an Idempotency-Key. */
  keyed: boolean;
  signed: (challenge: string) => readonly unknown[];
  body: (proof: Proof) => object;
}

const enc = encodeURIComponent;
const newKey = () => crypto.randomUUID();

/** SHA-256 of bytes as lowercase hex (WebCrypto: browsers and Node alike). */
async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class CommentsClient {
  readonly site: string;
  readonly identity: Identity;
  readonly http: Http;

  constructor(options: ClientOptions) {
    this.site = options.site;
    this.identity = options.identity;
    this.http = new Http(options.baseUrl.replace(/\/+$/, ""), { ...DEFAULT_RETRY, ...options.retry }, options.fetch);
  }

  /** A client with the site's identity from `store` (created on first use). */
  static async connect(options: Omit<ClientOptions, "identity"> & { keyStore: KeyStore }): Promise<CommentsClient> {
    return new CommentsClient({ ...options, identity: await Identity.load(options.site, options.keyStore) });
  }

  private sitePath(): string {
    return `/api/v1/sites/${enc(this.site)}`;
  }

  private pagePath(page: string): string {
    return `${this.sitePath()}/pages/${enc(page)}`;
  }

  // ---------------------------------------------------------------- reads --

  /** One page of comments; personalized (reactions' `mine`) unless `personalized` is false. */
  async listComments(
    page: string,
    query: ListQuery = {},
    options: { personalized?: boolean; signal?: AbortSignal } = {},
  ): Promise<MessagePage> {
    const personal =
      options.personalized === false
        ? {}
        : {
            author_public_key: this.identity.publicKey,
            author_signature: await this.identity.sign(signatureArrays.queryComments(this.site, page)),
          };
    return this.http.json({
      method: "QUERY",
      path: `${this.pagePath(page)}/comments`,
      body: JSON.stringify({ ...query, ...personal }),
      signal: options.signal,
    });
  }

  /** Comment counts of up to 200 pages in one read, in the order asked (unknown pages count 0). */
  async pageCounts(pages: string[], options: { signal?: AbortSignal } = {}): Promise<PageCount[]> {
    const answer = await this.http.json<{ data: PageCount[] }>({
      method: "QUERY",
      path: `${this.sitePath()}/page-counts`,
      body: JSON.stringify({ pages }),
      signal: options.signal,
    });
    return answer.data;
  }

  room(page: string): Promise<RoomInfo> {
    return this.http.json({ method: "GET", path: `${this.pagePath(page)}/room` });
  }

  pageRoles(page: string): Promise<PageRoles> {
    return this.http.json({ method: "GET", path: `${this.pagePath(page)}/roles` });
  }

  moderators(page: string): Promise<PageModerators> {
    return this.http.json({ method: "GET", path: `${this.pagePath(page)}/moderators` });
  }

  siteRoles(): Promise<SiteRoles> {
    return this.http.json({ method: "GET", path: `${this.sitePath()}/roles` });
  }

  async stickers(): Promise<StickerPack[]> {
    return (await this.http.json<{ packs: StickerPack[] }>({ method: "GET", path: `${this.sitePath()}/stickers` }))
      .packs;
  }

  /** A visitor's profile on this site (by default this visitor's). */
  profile(publicKey = this.identity.publicKey): Promise<VisitorProfile> {
    return this.http.json({
      method: "GET",
      path: `${this.sitePath()}/visitors/profile?${new URLSearchParams({ author_public_key: publicKey })}`,
    });
  }

  /** Live events of a page, reconnected with backoff and resumed with Last-Event-ID (after `lastEventId`, when given). */
  live(page: string, handlers: LiveHandlers, lastEventId: string | null = null): LiveConnection {
    return new LiveConnection(this.http, `${this.pagePath(page)}/sse`, handlers, lastEventId);
  }

  // --------------------------------------------------------------- writes --

  /**
   * A text comment (Markdown with `markdown: true`), or a media comment (`media`: an upload's
   * result or a sticker {kind: "sticker", url}).
   */
  async postComment(
    page: string,
    comment: Relations &
      Formatting & { content?: string; media?: PostCommentBody["media"]; displayName?: string | null },
    options: WriteOptions = {},
  ): Promise<SubmissionAccepted> {
    const replyTo = comment.replyTo ?? null;
    const threadRoot = comment.threadRoot ?? null;
    const signedText = comment.media ? comment.media.url : (comment.content ?? "");
    return this.submit(
      {
        method: "POST",
        path: `${this.pagePath(page)}/comments`,
        keyed: true,
        signed: (ch) => signatureArrays.postComment(this.site, page, signedText, replyTo, threadRoot, ch),
        body: (proof): PostCommentBody => ({
          ...(comment.content !== undefined ? { content: comment.content } : {}),
          ...(comment.media ? { media: comment.media } : formattedFields(comment.content, comment)),
          ...(comment.displayName ? { display_name: comment.displayName } : {}),
          reply_to: replyTo,
          thread_root: threadRoot,
          ...proof,
        }),
      },
      options,
    );
  }

  /** Replaces the text of this visitor's text comment (Markdown with `formatting.markdown`). */
  editComment(
    page: string,
    commentId: string,
    content: string,
    options: WriteOptions & Formatting = {},
  ): Promise<SubmissionAccepted> {
    return this.submit(
      {
        method: "PATCH",
        path: `${this.pagePath(page)}/comments/${enc(commentId)}`,
        keyed: true,
        signed: (ch) => signatureArrays.editComment(this.site, page, commentId, content, ch),
        body: (proof): EditCommentBody => ({ content, ...formattedFields(content, options), ...proof }),
      },
      options,
    );
  }

  deleteComment(page: string, commentId: string, options: WriteOptions = {}): Promise<SubmissionAccepted> {
    return this.submit(
      {
        method: "DELETE",
        path: `${this.pagePath(page)}/comments/${enc(commentId)}`,
        keyed: true,
        signed: (ch) => signatureArrays.deleteComment(this.site, page, commentId, ch),
        body: (proof) => proof,
      },
      options,
    );
  }

  async react(page: string, commentId: string, key: string, options: WriteOptions = {}): Promise<void> {
    await this.write(
      {
        method: "POST",
        path: `${this.pagePath(page)}/comments/${enc(commentId)}/reactions`,
        keyed: false,
        signed: (ch) => signatureArrays.react(this.site, page, commentId, key, ch),
        body: (proof) => ({ key, ...proof }),
      },
      options,
    );
  }

  async unreact(page: string, commentId: string, key: string, options: WriteOptions = {}): Promise<void> {
    await this.write(
      {
        method: "DELETE",
        path: `${this.pagePath(page)}/comments/${enc(commentId)}/reactions/${enc(key)}`,
        keyed: false,
        signed: (ch) => signatureArrays.unreact(this.site, page, commentId, key, ch),
        body: (proof) => proof,
      },
      options,
    );
  }

  createPoll(
    page: string,
    poll: Relations & { question: string; options: string[]; displayName?: string | null },
    options: WriteOptions = {},
  ): Promise<SubmissionAccepted> {
    const replyTo = poll.replyTo ?? null;
    const threadRoot = poll.threadRoot ?? null;
    return this.submit(
      {
        method: "POST",
        path: `${this.pagePath(page)}/polls`,
        keyed: true,
        signed: (ch) =>
          signatureArrays.createPoll(this.site, page, poll.question, poll.options, 1, replyTo, threadRoot, ch),
        body: (proof): CreatePollBody => ({
          question: poll.question,
          options: poll.options,
          max_selections: 1,
          ...(poll.displayName ? { display_name: poll.displayName } : {}),
          reply_to: replyTo,
          thread_root: threadRoot,
          ...proof,
        }),
      },
      options,
    );
  }

  /** Votes `optionId` ("0", "1", …) on the poll whose event id is `pollId`. */
  async vote(page: string, pollId: string, optionId: string, options: WriteOptions = {}): Promise<void> {
    await this.write(
      {
        method: "POST",
        path: `${this.pagePath(page)}/polls/${enc(pollId)}/votes`,
        keyed: false,
        signed: (ch) => signatureArrays.vote(this.site, page, pollId, optionId, ch),
        body: (proof) => ({ option_id: optionId, ...proof }),
      },
      options,
    );
  }

  postLocation(
    page: string,
    location: Relations & { geoUri: string; description?: string | null; displayName: string },
    options: WriteOptions = {},
  ): Promise<SubmissionAccepted> {
    const replyTo = location.replyTo ?? null;
    const threadRoot = location.threadRoot ?? null;
    return this.submit(
      {
        method: "POST",
        path: `${this.pagePath(page)}/location`,
        keyed: true,
        signed: (ch) => signatureArrays.locate(this.site, page, location.geoUri, replyTo, threadRoot, ch),
        body: (proof): PostLocationBody => ({
          geo_uri: location.geoUri,
          description: location.description ?? null,
          display_name: location.displayName,
          reply_to: replyTo,
          thread_root: threadRoot,
          ...proof,
        }),
      },
      options,
    );
  }

  /** Uploads a file for a media comment; post it with postComment(page, { media: upload }). */
  async uploadMedia(
    page: string,
    bytes: Uint8Array,
    file: { mime: string; filename?: string | null; voice?: boolean },
    options: WriteOptions = {},
  ): Promise<MediaUpload> {
    const filename = file.filename ?? null;
    const hash = await sha256Hex(bytes);
    const extra = {
      mime: file.mime,
      ...(filename !== null ? { filename } : {}),
      ...(file.voice ? { voice: "true" } : {}),
    };
    return this.upload(
      "POST",
      `${this.pagePath(page)}/media`,
      bytes,
      extra,
      (ch) => signatureArrays.upload(this.site, page, file.mime, filename, hash, ch),
      options,
    );
  }

  /** Upload, then post: one media comment. */
  async postMedia(
    page: string,
    bytes: Uint8Array,
    file: Relations & {
      mime: string;
      filename?: string | null;
      voice?: boolean;
      caption?: string;
      displayName?: string | null;
    },
    options: WriteOptions = {},
  ): Promise<SubmissionAccepted> {
    const upload = await this.uploadMedia(page, bytes, file, { signal: options.signal });
    return this.postComment(page, { ...file, content: file.caption, media: upload }, options);
  }

  /** Sets this visitor's avatar on the site; resolves with its (signed proxy) URL. */
  async uploadAvatar(
    bytes: Uint8Array,
    mime: string,
    filename: string | null = null,
    options: WriteOptions = {},
  ): Promise<{ avatar_url: string }> {
    const hash = await sha256Hex(bytes);
    const extra = { mime, ...(filename !== null ? { filename } : {}) };
    return this.upload(
      "PUT",
      `${this.sitePath()}/visitors/avatar`,
      bytes,
      extra,
      (ch) => signatureArrays.uploadAvatar(this.site, mime, hash, ch),
      options,
    );
  }

  async deleteAvatar(options: WriteOptions = {}): Promise<void> {
    const proof = await this.proof((ch) => signatureArrays.deleteAvatar(this.site, ch), options.signal);
    await this.http.send({
      method: "DELETE",
      path: `${this.sitePath()}/visitors/avatar?${new URLSearchParams(proof)}`,
      signal: options.signal,
    });
  }

  // ------------------------------------------------------------ internals --

  /** A fresh challenge, solved off the main thread, and the signature over `signed(prefix)`. */
  async proof(signed: (challenge: string) => readonly unknown[], signal?: AbortSignal): Promise<Proof> {
    const { challenge, difficulty } = await this.http.json<Challenge>({
      method: "GET",
      path: "/api/v1/challenge",
      signal,
    });
    const response = await solvePow(challenge, difficulty, signal);
    return {
      author_public_key: this.identity.publicKey,
      author_signature: await this.identity.sign(signed(challenge)),
      challenge_response: response,
    };
  }

  private async submit(write: Write, options: WriteOptions): Promise<SubmissionAccepted> {
    return (await (await this.write(write, options)).json()) as SubmissionAccepted;
  }

  /**
   * One logical write. Network retries resend the same bytes with the same Idempotency-Key,
   * so the service answers a retry of a request that did arrive with its first answer. A
   * key-less write (reaction, vote) has no such replay: when a retried one finds its challenge
   * spent (invalid-PoW) by the attempt that arrived, it goes once more with a fresh proof; the
   * service takes a repeated reaction or vote as a no-op.
   */
  private async write(write: Write, options: WriteOptions): Promise<Response> {
    const key = write.keyed ? (options.idempotencyKey ?? newKey()) : null;
    for (let fresh = 0; ; fresh++) {
      const proof = await this.proof(write.signed, options.signal);
      let retried = false;
      try {
        return await this.http.send(
          {
            method: write.method,
            path: write.path,
            body: JSON.stringify(write.body(proof)),
            headers: key ? { "Idempotency-Key": key } : {},
            signal: options.signal,
          },
          () => (retried = true),
        );
      } catch (err) {
        if (!key && retried && fresh === 0 && err instanceof ApiError && err.code === "invalid-PoW") continue;
        throw err;
      }
    }
  }

  /** Raw-body uploads: the proof travels in the query, the key in the header. */
  private async upload<T>(
    method: string,
    path: string,
    bytes: Uint8Array,
    query: Record<string, string>,
    signed: (challenge: string) => readonly unknown[],
    options: WriteOptions,
  ): Promise<T> {
    const proof = await this.proof(signed, options.signal);
    const target = `${path}?${new URLSearchParams({ ...query, ...proof })}`;
    return this.http.json({
      method,
      path: target,
      body: bytes,
      headers: { "Idempotency-Key": options.idempotencyKey ?? newKey() },
      signal: options.signal,
    });
  }
}
