-- AlterTable
ALTER TABLE "ProjectionRepair" ADD COLUMN     "nextRetryAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "RoomQuarantine" (
    "roomId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "firstQuarantinedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "failures" INTEGER NOT NULL DEFAULT 1,
    "nextRetryAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RoomQuarantine_pkey" PRIMARY KEY ("roomId")
);

-- CreateTable
CREATE TABLE "RoomUpgradeIntent" (
    "roomId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL,
    "targetVersion" TEXT NOT NULL,
    "replacementRoomId" TEXT,
    "state" TEXT NOT NULL,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RoomUpgradeIntent_pkey" PRIMARY KEY ("roomId")
);

-- CreateIndex
CREATE INDEX "RoomQuarantine_siteId_idx" ON "RoomQuarantine"("siteId");

-- CreateIndex
CREATE INDEX "RoomUpgradeIntent_state_idx" ON "RoomUpgradeIntent"("state");

