// What a visitor write operation declares: only what is its own. Everything else (site,
// idempotency, signature, proof of work, target lookup, the transaction) is the pipeline's.
import type { Db, Tx } from "../db/client.ts";
import type { FieldError } from "../core/errors.ts";
import type { MatrixAction } from "../queue/payloads.ts";
import type { ProofBlock } from "../matrix/events.ts";
import type { Homeserver } from "../matrix/homeserver.ts";
import type { ObjectRef } from "@pothos/core";
import type { builder } from "../graphql/builder.ts";

type SchemaTypes = PothosSchemaTypes.ExtendDefaultTypes<
  typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never
>;

/** The author proof every visitor write carries, for its site. */
export interface SiteProofInput {
  siteId: string;
  authorPublicKey: string;
  authorSignature: string;
  challengeResponse: string;
}

/** A page write's input (comments, reactions, polls, uploads): the author proof and the page. */
export interface AuthorProofInput extends SiteProofInput {
  pageSlug: string;
}

/** What a site-level write's (avatars) declarations are computed from besides its own input. */
export interface SiteScope {
  siteId: string;
  /** The challenge prefix (the part of challenge_response before `|`). */
  challenge: string;
}

/** What a page write's declarations are computed from besides its own input. */
export interface WriteScope extends SiteScope {
  pageSlug: string;
}

/** The scope of a write with this input: with the page for a page write, without for a site-level one. */
export type ScopeOf<Input> = Input extends { pageSlug: string } ? WriteScope : SiteScope;

/** A write's scope and its verified author (the visitor key, base64url). */
export type AuthorScopeOf<Input> = ScopeOf<Input> & { author: string };

/** A comment an operation points at, and what it must be. */
export interface TargetRule {
  /** The input field naming it (for error messages). */
  field: string;
  eventId: string | null;
  /** Must be the author's own visitor comment (edit, delete). */
  own?: boolean;
  /** A redacted target is acceptable (unreact: the reaction is gone anyway). */
  allowRedacted?: boolean;
  /** Must be able to root a thread: not itself inside one. */
  threadRoot?: boolean;
  /** Must be a poll. */
  poll?: boolean;
}

/** A target comment as the rules and the Matrix effect see it. */
export interface Target {
  eventId: string;
  roomId: string;
  status: string;
  authorType: string;
  authorPublicKey: string | null;
  threadRoot: string | null;
  content: Record<string, unknown>;
}

export interface EffectScope extends WriteScope {
  proof: ProofBlock;
  /** Resolved targets by field name (only the rules whose eventId was set). */
  targets: Record<string, Target>;
}

/** A pack image found by its url, for sticker comments (which take their metadata from the pack). */
export interface FoundSticker {
  body: string | null;
  info: Record<string, unknown> | null;
  packId: string;
  shortcode: string;
}

/** What an operation's own lookups and immediate effects may use (the composition root provides it). */
export interface OperationServices {
  db: Db;
  homeserver: Homeserver;
  /** Creates the site's virtual user of a visitor key (the rooms feature's Provisioner). */
  provisioner: { ensureVisitor(siteId: string, publicKey: string, displayName: string | null): Promise<string> };
  /** The sticker with this image URL in the site's packs (the stickers feature's StickerPacks). */
  stickers: { findImage(siteId: string, url: string): Promise<FoundSticker | null> };
}

/** A page write's scope and its verified author (the visitor key, base64url). */
export type AuthorScope = AuthorScopeOf<AuthorProofInput>;

/** The GraphQL field extension that marks a mutation as a door into the write pipeline (src/rest/route-checks.ts holds author-proof routes to one). */
export const VISITOR_WRITE_EXTENSION = "visitorWrite";

/** The GraphQL types an operation's own input fields can have (nullable unless `!`). */
interface FieldValues {
  String: string | null;
  "String!": string;
  Int: number | null;
  "[String!]!": string[];
  JSON: unknown;
}
export type FieldType = keyof FieldValues;

/** An operation's own input fields: the GraphQL input's fields between the site/page and the author proof, in order. */
export type InputFields = Readonly<Record<string, FieldType>>;

/** The input values the declared fields give (GraphQL has checked them; absent optional fields are null). */
export type FieldsInput<Fields extends InputFields> = { -readonly [K in keyof Fields]: FieldValues[Fields[K]] };

/** A page write's input: the author proof, the page and the declared fields. */
export type PageInput<Fields extends InputFields> = AuthorProofInput & FieldsInput<Fields>;

/** A site-level write's input (avatars): the author proof and the declared fields. */
export type SiteInput<Fields extends InputFields> = SiteProofInput & FieldsInput<Fields>;

/** An immediate write's input also carries the request's raw body (empty without one, e.g. on /graphql). */
export interface RawBodyInput {
  body: Buffer;
}

/** The declared field type whose values are exactly this type. */
type FieldTypeOf<Value> = {
  [T in FieldType]: [FieldValues[T]] extends [Value] ? ([Value] extends [FieldValues[T]] ? T : never) : never;
}[FieldType];

/** The field declarations an input's own fields need (what the author proof, the page and the raw body do not cover). */
export type FieldsOf<Input> = {
  readonly [K in Exclude<keyof Input, keyof AuthorProofInput | keyof RawBodyInput>]: FieldTypeOf<Input[K]>;
};

/** The declarations every operation has, whether its effect is queued or immediate (what the pipeline's checks use). */
export interface WriteOperation<Input extends SiteProofInput, Checked> {
  /** The GraphQL mutation (and its input type, `<Name>Input`) that src/writes/mutations.ts derives. */
  mutation: string;
  /** The mutation's description in the GraphQL schema. */
  description: string;
  /** A page write (pageSlug in the input) or a site-level one (avatars). */
  level: Input extends { pageSlug: string } ? "page" : "site";
  /** The operation's own input fields, as the GraphQL input declares them. */
  fields: FieldsOf<Input>;
  /** Submission kind, e.g. "comment.edit" (shown to dashboards, keys the worker's logs). */
  kind: string;
  /** Field validation beyond the JSON schema; pushes every problem, returns the normalized input. */
  check(input: Input, errors: FieldError[]): Checked | Promise<Checked>;
  /** The canonical array the author signs. */
  signatureArray(checked: Checked, scope: ScopeOf<Input>): unknown[];
  /**
   * What the write needs from storage once its proof verified (e.g. a media comment's upload
   * record, or the sticker from the site's packs); refuses what is not there. Returns the
   * checked input completed.
   */
  load?(checked: Checked, scope: AuthorScopeOf<Input>, services: OperationServices): Promise<Checked>;
  /** The comments it points at. */
  targets?(checked: Checked): TargetRule[];
  /** Checks that need the resolved targets (e.g. a vote's option must exist in the poll). */
  checkTargets?(checked: Checked, targets: Record<string, Target>): void;
}

/** An immediate effect's outcome: the 200 answer, and what to store in the write's transaction. */
export interface Performed<Result> {
  result: Result;
  persist(tx: Tx): Promise<void>;
}

/**
 * A write whose effect runs while the request waits (media uploads: the answer is the
 * homeserver's mxc:// URL): after every check, before the challenge is spent; answered 200 with
 * its result, which an Idempotency-Key replay returns without performing it again.
 */
export interface ImmediateOperation<Input extends SiteProofInput, Checked, Result>
  extends WriteOperation<Input, Checked> {
  answer: "result";
  /** The mutation's GraphQL type: the result's fields plus `replayed` (implemented by the feature's graphql.ts). */
  output: ObjectRef<SchemaTypes, Result & { replayed: boolean }>;
  perform(checked: Checked, scope: AuthorScopeOf<Input>, services: OperationServices): Promise<Performed<Result>>;
  /**
   * Runs when an Idempotency-Key replay answers in place of `perform` (its author is the key the
   * replayed request was recorded for): e.g. an avatar upload re-applies the profile write.
   */
  replayed?(result: Result, scope: { siteId: string; author: string }, services: OperationServices): Promise<void>;
}

/** A write whose Matrix effect is queued (202 or 204) and performed by the queue worker. */
export interface VisitorOperation<Input extends AuthorProofInput, Checked> extends WriteOperation<Input, Checked> {
  /** 202 {submission_id}, or 204 for annotations (reactions, votes). */
  answer: "submission" | "no-content";
  /** The signed subject repeated in the event's proof block (`content`). */
  proofSubject(checked: Checked): string;
  /** Its Matrix effect, computed in full before the 202 (so its size is known). */
  effect(checked: Checked, scope: EffectScope): MatrixAction;
  /** Presentation data written to the virtual user's profile (not signed). */
  displayName?(checked: Checked): string | null;
}

/** Any visitor write, whatever its own input and checked types (what routes, the GraphQL schema and the worker list). */
export type AnyWriteOperation =
  | VisitorOperation<AuthorProofInput, unknown>
  // A union input: \`level\` is then "page" or "site", as the operation's own input says.
  | ImmediateOperation<(SiteProofInput | AuthorProofInput) & RawBodyInput, unknown, object>;
