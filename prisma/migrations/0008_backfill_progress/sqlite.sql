-- CreateTable
CREATE TABLE "BackfillProgress" (
    "roomId" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT,
    "nextToken" TEXT,
    "lastEventId" TEXT,
    "events" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "BackfillProgress_siteId_idx" ON "BackfillProgress"("siteId");

