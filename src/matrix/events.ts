// The Matrix event contents the service writes for visitors. Every one carries the signed
// proof block, so anyone reading the room can check the visitor signed what it says.
import type { ProofBlock } from "../queue/payloads.ts";

/** Key of the signed proof block in events the service sends for visitors. */
export const PROOF_KEY = "service.proof";

/** Homeservers refuse events larger than this (the whole PDU, canonical JSON). */
export const MAX_EVENT_BYTES = 65_536;
/** Homeservers refuse longer profile display names (Synapse: MAX_DISPLAYNAME_LEN, in code points). */
export const MAX_DISPLAY_NAME_CODE_POINTS = 256;
/** Room for what the homeserver adds around the content: ids, hashes, signatures, auth and prev events. */
export const EVENT_ENVELOPE_ALLOWANCE = 2_048;

type Content = Record<string, unknown>;

export function textMessageContent(body: string, replyTo: string | null, threadRoot: string | null, proof: ProofBlock): Content {
  return withRelations({ msgtype: "m.text", body, [PROOF_KEY]: proof }, replyTo, threadRoot);
}

/** An edit: m.replace with the new content, and a "* " fallback for clients without edits. */
export function editContent(targetEventId: string, body: string, proof: ProofBlock): Content {
  return {
    msgtype: "m.text",
    body: `* ${body}`,
    "m.new_content": { msgtype: "m.text", body },
    "m.relates_to": { rel_type: "m.replace", event_id: targetEventId },
    [PROOF_KEY]: proof,
  };
}

export function reactionContent(targetEventId: string, key: string, proof: ProofBlock): Content {
  return { "m.relates_to": { rel_type: "m.annotation", event_id: targetEventId, key }, [PROOF_KEY]: proof };
}

/**
 * MSC3381 poll start as an m.room.message; the fallback body is the question and numbered
 * options. Nothing else repeats the question, so a 500-cluster question still fits one event.
 */
export function pollStartContent(question: string, options: string[], maxSelections: number, replyTo: string | null, threadRoot: string | null, proof: ProofBlock): Content {
  const fallback = [question, ...options.map((option, i) => `${i + 1}. ${option}`)].join("\n");
  return withRelations(
    {
      msgtype: "org.matrix.msc3381.poll.start",
      body: fallback,
      "org.matrix.msc3381.poll.start": {
        question: { "org.matrix.msc1767.text": question },
        kind: "org.matrix.msc3381.poll.disclosed",
        max_selections: maxSelections,
        answers: options.map((text, i) => ({ id: String(i), "org.matrix.msc1767.text": text })),
      },
      [PROOF_KEY]: proof,
    },
    replyTo,
    threadRoot,
  );
}

/** An MSC3381 vote, in the stable and the unstable shape. */
export function pollResponseContent(pollEventId: string, optionId: string, proof: ProofBlock): Content {
  return {
    "m.relates_to": { rel_type: "m.reference", event_id: pollEventId },
    "m.selections": [optionId],
    "org.matrix.msc3381.poll.response": { answers: [optionId] },
    [PROOF_KEY]: proof,
  };
}

/** MSC3488 location as an m.room.message. */
export function locationContent(geoUri: string, description: string | null, replyTo: string | null, threadRoot: string | null, proof: ProofBlock): Content {
  const location = { uri: geoUri, ...(description !== null ? { description } : {}) };
  return withRelations(
    {
      msgtype: "m.location",
      body: description ?? `Location: ${geoUri}`,
      geo_uri: geoUri,
      "m.location": location,
      "org.matrix.msc3488.location": location,
      [PROOF_KEY]: proof,
    },
    replyTo,
    threadRoot,
  );
}

/** An uploaded file as a media comment sends it (from the upload's record, not the client's claims). */
export interface MediaAttachment {
  msgtype: "m.image" | "m.video" | "m.audio" | "m.file";
  url: string;
  mimetype: string;
  size: number;
  filename: string | null;
  width: number | null;
  height: number | null;
  /** A voice message: MSC3245 fields, so clients show a voice player. */
  voice: boolean;
}

/**
 * m.image / m.video / m.audio / m.file. `body` is the comment text (a caption when a filename
 * is given, as Matrix reads it) or else the filename.
 */
export function mediaMessageContent(media: MediaAttachment, body: string, replyTo: string | null, threadRoot: string | null, proof: ProofBlock): Content {
  const info = { mimetype: media.mimetype, size: media.size, ...(media.width !== null && media.height !== null ? { w: media.width, h: media.height } : {}) };
  const voice = media.voice ? { "org.matrix.msc3245.voice": {}, "org.matrix.msc1767.audio": {} } : {};
  return withRelations(
    { msgtype: media.msgtype, body, ...(media.filename !== null ? { filename: media.filename } : {}), url: media.url, info, ...voice, [PROOF_KEY]: proof },
    replyTo,
    threadRoot,
  );
}

/** An m.sticker event: the pack's image with the pack's description and info. */
export function stickerContent(url: string, body: string, info: Record<string, unknown>, replyTo: string | null, threadRoot: string | null, proof: ProofBlock): Content {
  return withRelations({ body, url, info, [PROOF_KEY]: proof }, replyTo, threadRoot);
}

/** Redaction content: the proof block says which visitor asked for it (and its submission). */
export const redactionContent = (proof: ProofBlock): Content => ({ reason: "Deleted by its author", [PROOF_KEY]: proof });

function withRelations(content: Content, replyTo: string | null, threadRoot: string | null): Content {
  const relates = relatesTo(replyTo, threadRoot);
  return relates ? { ...content, "m.relates_to": relates } : content;
}

/** m.relates_to for a reply and/or a thread (Matrix threads carry a reply fallback). */
export function relatesTo(replyTo: string | null, threadRoot: string | null): Record<string, unknown> | null {
  if (threadRoot) {
    return {
      rel_type: "m.thread",
      event_id: threadRoot,
      is_falling_back: replyTo === null,
      "m.in_reply_to": { event_id: replyTo ?? threadRoot },
    };
  }
  return replyTo ? { "m.in_reply_to": { event_id: replyTo } } : null;
}

/** Bytes an event of this type and content takes, without the homeserver's envelope. */
export const eventBytes = (type: string, content: Content): number => Buffer.byteLength(JSON.stringify({ type, content }), "utf8");

/** The Matrix transaction id of a submission's event: stable, so a resend after a crash dedupes. */
export const submissionTxnId = (submissionId: string): string => `submission.${submissionId}`;

/** The submission id in an event's proof block, if it carries one. */
export function submissionIdOf(content: Record<string, unknown> | undefined): string | null {
  const proof = content?.[PROOF_KEY] as { submission_id?: unknown } | undefined;
  return typeof proof?.submission_id === "string" ? proof.submission_id : null;
}
