-- AlterTable
ALTER TABLE "Comment" ADD COLUMN "reactionCount" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "Comment_siteId_pageSlug_reactionCount_originServerTs_eventId_idx" ON "Comment"("siteId", "pageSlug", "reactionCount" DESC, "originServerTs", "eventId");

-- Backfill: the sum of the stored summaries' counts (src/projection/annotations.ts reactionTotal).
UPDATE "Comment" SET "reactionCount" = (SELECT COALESCE(SUM(json_extract(value, '$.count')), 0) FROM json_each("Comment"."reactionSummary"))
WHERE "reactionSummary" <> '[]';
