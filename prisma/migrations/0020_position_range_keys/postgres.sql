-- DropIndex
DROP INDEX "CommentPosition_siteId_pageSlug_position_eventId_idx";

-- CreateIndex
CREATE INDEX "CommentPosition_siteId_pageSlug_position_originServerTs_eve_idx" ON "CommentPosition"("siteId", "pageSlug", "position", "originServerTs", "eventId");

