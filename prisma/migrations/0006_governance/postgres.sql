-- CreateTable
CREATE TABLE "RoleClaim" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL DEFAULT '',
    "userId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "level" INTEGER NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "appliedAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RoleClaim_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OwnershipTransfer" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "claimId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "OwnershipTransfer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RolePowerLevel" (
    "roomId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "level" INTEGER,
    "written" BOOLEAN NOT NULL DEFAULT false,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RolePowerLevel_pkey" PRIMARY KEY ("roomId","userId")
);

-- CreateTable
CREATE TABLE "BotRoom" (
    "roomId" TEXT NOT NULL,
    "inviter" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "BotRoom_pkey" PRIMARY KEY ("roomId")
);

-- CreateTable
CREATE TABLE "BotInboxEvent" (
    "seq" SERIAL NOT NULL,
    "eventId" TEXT NOT NULL,
    "roomId" TEXT NOT NULL,
    "json" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "leaseUntil" TIMESTAMP(3),
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BotInboxEvent_pkey" PRIMARY KEY ("seq")
);

-- CreateIndex
CREATE UNIQUE INDEX "RoleClaim_tokenHash_key" ON "RoleClaim"("tokenHash");

-- CreateIndex
CREATE INDEX "RoleClaim_siteId_status_idx" ON "RoleClaim"("siteId", "status");

-- CreateIndex
CREATE INDEX "RoleClaim_userId_status_idx" ON "RoleClaim"("userId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "OwnershipTransfer_claimId_key" ON "OwnershipTransfer"("claimId");

-- CreateIndex
CREATE INDEX "OwnershipTransfer_siteId_status_idx" ON "OwnershipTransfer"("siteId", "status");

-- CreateIndex
CREATE INDEX "RolePowerLevel_siteId_written_idx" ON "RolePowerLevel"("siteId", "written");

-- CreateIndex
CREATE UNIQUE INDEX "BotInboxEvent_eventId_key" ON "BotInboxEvent"("eventId");

-- CreateIndex
CREATE INDEX "BotInboxEvent_leaseUntil_idx" ON "BotInboxEvent"("leaseUntil");

-- AddForeignKey
ALTER TABLE "RoleClaim" ADD CONSTRAINT "RoleClaim_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OwnershipTransfer" ADD CONSTRAINT "OwnershipTransfer_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OwnershipTransfer" ADD CONSTRAINT "OwnershipTransfer_claimId_fkey" FOREIGN KEY ("claimId") REFERENCES "RoleClaim"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RolePowerLevel" ADD CONSTRAINT "RolePowerLevel_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

