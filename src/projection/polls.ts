// Polls (MSC3381, unstable and stable shapes): the start event's question and answers, and the
// tally of the votes relating to it (pure).
import type { PollContent } from "../contract/message-content.ts";
import { byTimeline, obj, str, type RoomEvent } from "./room-event.ts";
import { EventType } from "../contract/matrix-vocabulary.ts";

const UNSTABLE_START = EventType.PollStartUnstable;
export const POLL_START_TYPES: readonly string[] = [UNSTABLE_START, EventType.PollStart];
const POLL_RESPONSE_TYPES: ReadonlySet<string> = new Set([EventType.PollResponse, EventType.PollResponseUnstable]);

export interface Poll {
  question: string;
  options: Array<{ id: string; text: string }>;
  maxSelections: number;
}

/**
 * The poll an event starts: a native poll start event, or (as the service sends them) an
 * m.room.message with the poll msgtype. Null when it is none or has no usable question/answers.
 */
export function parsePoll(event: RoomEvent): Poll | null {
  const c = event.content;
  const starts =
    POLL_START_TYPES.includes(event.type) || (event.type === EventType.Message && c.msgtype === UNSTABLE_START);
  const block = starts ? (obj(c["m.poll"]) ?? obj(c[UNSTABLE_START])) : null;
  if (!block) return null;
  const question = textOf(block.question);
  const options: Poll["options"] = [];
  for (const answer of Array.isArray(block.answers) ? block.answers : []) {
    const a = obj(answer);
    const id = str(a?.["m.id"]) ?? str(a?.id);
    const text = textOf(a);
    if (id !== null && text !== null && !options.some((o) => o.id === id)) options.push({ id, text });
  }
  if (question === null || options.length === 0) return null;
  const max = block.max_selections;
  return { question, options, maxSelections: Number.isSafeInteger(max) && (max as number) >= 1 ? (max as number) : 1 };
}

/** Text in any of the extensible-event shapes: m.text representations, MSC1767 text, or body. */
function textOf(value: unknown): string | null {
  const o = obj(value);
  if (!o) return null;
  const representations = o["m.text"] ?? o["org.matrix.msc1767.message"];
  if (Array.isArray(representations)) {
    const texts = representations.map(obj).filter((r) => r !== null && typeof r.body === "string");
    const plain = texts.find((r) => r!.mimetype === undefined || r!.mimetype === "text/plain") ?? texts[0];
    if (plain) return plain.body as string;
  }
  return str(o["m.text"]) ?? str(o["org.matrix.msc1767.text"]) ?? str(o.body);
}

/** The answer ids a vote selects, in either shape. */
export function voteSelections(event: RoomEvent): string[] {
  if (!POLL_RESPONSE_TYPES.has(event.type)) return [];
  const c = event.content;
  const selections = c["m.selections"] ?? obj(c["org.matrix.msc3381.poll.response"])?.answers;
  return Array.isArray(selections) ? selections.filter((s): s is string => typeof s === "string") : [];
}

/**
 * Counts per option, every option listed. Each sender's newest vote that selects at least one
 * valid answer counts once (up to max_selections answers); the events given are the poll's
 * relations still in force (redacted votes already left out).
 */
export function tallyPoll(poll: Poll, events: RoomEvent[]): Array<{ option_index: number; count: number }> {
  const index = new Map(poll.options.map((o, i) => [o.id, i]));
  const newest = new Map<string, { vote: RoomEvent; picks: number[] }>();
  for (const vote of events) {
    const picks = [...new Set(voteSelections(vote).flatMap((id) => index.get(id) ?? []))].slice(0, poll.maxSelections);
    if (picks.length === 0) continue;
    const current = newest.get(vote.sender);
    if (!current || byTimeline(current.vote, vote) < 0) newest.set(vote.sender, { vote, picks });
  }
  const counts = poll.options.map(() => 0);
  for (const { picks } of newest.values()) for (const i of picks) counts[i]!++;
  return counts.map((count, option_index) => ({ option_index, count }));
}

/** The poll content variant with its current responses. */
export function pollContent(poll: Poll, votes: RoomEvent[]): PollContent {
  return { type: "poll", question: poll.question, options: poll.options, responses: tallyPoll(poll, votes) };
}
