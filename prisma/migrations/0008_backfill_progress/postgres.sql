-- CreateTable
CREATE TABLE "BackfillProgress" (
    "roomId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT,
    "nextToken" TEXT,
    "lastEventId" TEXT,
    "events" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "BackfillProgress_pkey" PRIMARY KEY ("roomId")
);

-- CreateIndex
CREATE INDEX "BackfillProgress_siteId_idx" ON "BackfillProgress"("siteId");

