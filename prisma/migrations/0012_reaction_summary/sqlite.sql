-- AlterTable
ALTER TABLE "Comment" ADD COLUMN "reactionSummary" TEXT NOT NULL DEFAULT '[]';

-- Backfill: per key, the distinct reacting users, in the order of each key's first reaction
-- (src/projection/annotations.ts reactionSummaries, without `mine`).
UPDATE "Comment" SET "reactionSummary" = (
  SELECT json_group_array(json_object('key', "key", 'count', "count")) FROM (
    SELECT "key", COUNT(DISTINCT "sender") AS "count", MIN("originServerTs") AS "first" FROM "Reaction"
    WHERE "targetEventId" = "Comment"."eventId" GROUP BY "key" ORDER BY "first", "key"
  )
)
WHERE "eventId" IN (SELECT "targetEventId" FROM "Reaction");
