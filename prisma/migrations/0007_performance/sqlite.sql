-- CreateTable
CREATE TABLE "PageCommentCount" (
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("siteId", "pageSlug")
);

-- CreateTable
CREATE TABLE "CommentPosition" (
    "eventId" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL,
    "originServerTs" BIGINT NOT NULL,
    "position" INTEGER NOT NULL
);

-- CreateIndex
CREATE INDEX "CommentPosition_siteId_pageSlug_position_idx" ON "CommentPosition"("siteId", "pageSlug", "position");

-- CreateIndex
CREATE INDEX "CommentPosition_siteId_pageSlug_originServerTs_eventId_idx" ON "CommentPosition"("siteId", "pageSlug", "originServerTs", "eventId");

-- CreateIndex
CREATE INDEX "Submission_siteId_pageSlug_status_createdAt_idx" ON "Submission"("siteId", "pageSlug", "status", "createdAt");


-- Backfill: positions and counts of the comments projected before this migration, in the list's
-- order (origin_server_ts, then event id), 1-based per page.
INSERT INTO "CommentPosition" ("eventId", "siteId", "pageSlug", "originServerTs", "position")
SELECT "eventId", "siteId", "pageSlug", "originServerTs",
       ROW_NUMBER() OVER (PARTITION BY "siteId", "pageSlug" ORDER BY "originServerTs", "eventId")
FROM "Comment";

INSERT INTO "PageCommentCount" ("siteId", "pageSlug", "count")
SELECT "siteId", "pageSlug", COUNT(*) FROM "Comment" GROUP BY "siteId", "pageSlug";
