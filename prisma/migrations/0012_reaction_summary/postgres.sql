-- AlterTable
ALTER TABLE "Comment" ADD COLUMN     "reactionSummary" TEXT NOT NULL DEFAULT '[]';

-- Backfill: per key, the distinct reacting users, in the order of each key's first reaction
-- (src/projection/annotations.ts reactionSummaries, without `mine`).
UPDATE "Comment" c SET "reactionSummary" = s."summary" FROM (
  SELECT "targetEventId", json_agg(json_build_object('key', "key", 'count', "count") ORDER BY "first", "key" COLLATE "C")::text AS "summary"
  FROM (SELECT "targetEventId", "key", COUNT(DISTINCT "sender") AS "count", MIN("originServerTs") AS "first" FROM "Reaction" GROUP BY "targetEventId", "key") k
  GROUP BY "targetEventId"
) s
WHERE c."eventId" = s."targetEventId";
