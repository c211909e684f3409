-- AlterTable
ALTER TABLE "ProjectionRepair" ADD COLUMN "nextRetryAt" DATETIME;

-- CreateTable
CREATE TABLE "RoomQuarantine" (
    "roomId" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "firstQuarantinedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "failures" INTEGER NOT NULL DEFAULT 1,
    "nextRetryAt" DATETIME,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "RoomUpgradeIntent" (
    "roomId" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL,
    "targetVersion" TEXT NOT NULL,
    "replacementRoomId" TEXT,
    "state" TEXT NOT NULL,
    "error" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "RoomQuarantine_siteId_idx" ON "RoomQuarantine"("siteId");

-- CreateIndex
CREATE INDEX "RoomUpgradeIntent_state_idx" ON "RoomUpgradeIntent"("state");

