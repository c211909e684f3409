-- DropIndex
DROP INDEX "Room_siteId_pageSlug_state_idx";

-- DropIndex
DROP INDEX "CommentPosition_siteId_pageSlug_position_idx";

-- CreateIndex
CREATE INDEX "Room_siteId_pageSlug_state_createdAt_roomId_idx" ON "Room"("siteId", "pageSlug", "state", "createdAt", "roomId");

-- CreateIndex
CREATE INDEX "CommentPosition_siteId_pageSlug_position_eventId_idx" ON "CommentPosition"("siteId", "pageSlug", "position", "eventId");

