// Target checks: the comments a write points at must be comments of this page, not redacted,
// and whatever else the operation's rules say (its own, a poll, a possible thread root).
import type { WriteStore } from "./write-store.ts";
import { DomainError, forbidden, notFound, validationError } from "../core/errors.ts";
import type { SiteScope, Target, TargetRule } from "./operation.ts";

/** A site-level write (no page) has no comment targets: any rule it had would find none. */
export async function resolveTargets(
  store: WriteStore,
  scope: SiteScope & { pageSlug?: string },
  author: string,
  rules: TargetRule[],
): Promise<Record<string, Target>> {
  const wanted = rules.filter((r): r is TargetRule & { eventId: string } => r.eventId !== null);
  if (wanted.length === 0) return {};
  const rows = await store.targetComments(wanted.map((r) => r.eventId));
  const byId = new Map(rows.map((row) => [row.eventId, row]));
  const targets: Record<string, Target> = {};
  for (const rule of wanted) {
    const row = byId.get(rule.eventId);
    if (!row || row.siteId !== scope.siteId || row.pageSlug !== scope.pageSlug) {
      throw notFound("comment-not-found", `${rule.field} ${rule.eventId} is not a comment on this page.`);
    }
    const target: Target = { ...row, content: JSON.parse(row.content) as Record<string, unknown> };
    checkRule(rule, target, author);
    targets[rule.field] = target;
  }
  return targets;
}

function checkRule(rule: TargetRule, target: Target, author: string): void {
  if (target.status === "redacted" && !rule.allowRedacted) {
    throw new DomainError("comment-redacted", 409, `${rule.field} ${target.eventId} has been deleted.`);
  }
  if (rule.own) {
    if (target.authorType !== "visitor") {
      throw forbidden(
        "not-manageable",
        `${target.eventId} was written by a Matrix account; only visitors' own comments can be changed through the API.`,
      );
    }
    if (target.authorPublicKey !== author)
      throw forbidden("not-author", `${target.eventId} was written by another visitor key.`);
  }
  if (rule.threadRoot && target.threadRoot !== null) {
    throw validationError("thread_root must not itself be part of a thread.", [
      { field: rule.field, message: "is inside a thread; use that thread's root" },
    ]);
  }
  if (rule.poll && target.content.type !== "poll") throw notFound("poll-not-found", `${target.eventId} is not a poll.`);
}

/** The relation rules every comment-like post shares (reply_to, thread_root). */
export const relationRules = (replyTo: string | null, threadRoot: string | null): TargetRule[] => [
  { field: "reply_to", eventId: replyTo },
  { field: "thread_root", eventId: threadRoot, threadRoot: true },
];
