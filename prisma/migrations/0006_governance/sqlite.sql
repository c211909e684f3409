-- CreateTable
CREATE TABLE "RoleClaim" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL DEFAULT '',
    "userId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "level" INTEGER NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "expiresAt" DATETIME NOT NULL,
    "appliedAt" DATETIME,
    "endedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "RoleClaim_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "OwnershipTransfer" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "claimId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" DATETIME,
    CONSTRAINT "OwnershipTransfer_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "OwnershipTransfer_claimId_fkey" FOREIGN KEY ("claimId") REFERENCES "RoleClaim" ("id") ON DELETE CASCADE ON UPDATE CASCADE
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
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("roomId", "userId"),
    CONSTRAINT "RolePowerLevel_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "BotRoom" (
    "roomId" TEXT NOT NULL PRIMARY KEY,
    "inviter" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "BotInboxEvent" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "eventId" TEXT NOT NULL,
    "roomId" TEXT NOT NULL,
    "json" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "leaseUntil" DATETIME,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
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

