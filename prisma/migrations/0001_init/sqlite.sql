-- CreateTable
CREATE TABLE "Site" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "source" TEXT NOT NULL,
    "idGenerated" BOOLEAN NOT NULL DEFAULT false,
    "claimTokenHash" TEXT,
    "status" TEXT NOT NULL DEFAULT 'active',
    "spaceRoomId" TEXT,
    "hmacSecret" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "SiteOrigin" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "siteId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "SiteOrigin_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Room" (
    "roomId" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL,
    "roomVersion" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'active',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Room_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Submission" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL,
    "authorPublicKey" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseUntil" DATETIME,
    "lastError" TEXT,
    "eventId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "completedAt" DATETIME,
    CONSTRAINT "Submission_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "IdempotencyRecord" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "authorPublicKey" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "body" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ConsumedChallenge" (
    "challenge" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "VirtualUser" (
    "userId" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "publicKey" TEXT NOT NULL,
    "displayName" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Comment" (
    "eventId" TEXT NOT NULL PRIMARY KEY,
    "roomId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL,
    "sender" TEXT NOT NULL,
    "submissionId" TEXT,
    "authorType" TEXT NOT NULL,
    "authorPublicKey" TEXT,
    "displayName" TEXT,
    "avatarUrl" TEXT,
    "status" TEXT NOT NULL DEFAULT 'published',
    "content" TEXT NOT NULL,
    "replyTo" TEXT,
    "threadRoot" TEXT,
    "originServerTs" BIGINT NOT NULL,
    "editedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Comment_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "RoomMember" (
    "roomId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "membership" TEXT NOT NULL,
    "displayName" TEXT,
    "avatarUrl" TEXT,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("roomId", "userId")
);

-- CreateTable
CREATE TABLE "AppserviceTransaction" (
    "txnId" TEXT NOT NULL PRIMARY KEY,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "LiveEvent" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "eventId" TEXT,
    "payload" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ServiceSetting" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "Site_spaceRoomId_key" ON "Site"("spaceRoomId");

-- CreateIndex
CREATE UNIQUE INDEX "SiteOrigin_siteId_origin_key" ON "SiteOrigin"("siteId", "origin");

-- CreateIndex
CREATE INDEX "Room_siteId_pageSlug_state_idx" ON "Room"("siteId", "pageSlug", "state");

-- CreateIndex
CREATE INDEX "Submission_status_nextAttemptAt_idx" ON "Submission"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "IdempotencyRecord_expiresAt_idx" ON "IdempotencyRecord"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "IdempotencyRecord_authorPublicKey_key_key" ON "IdempotencyRecord"("authorPublicKey", "key");

-- CreateIndex
CREATE INDEX "ConsumedChallenge_expiresAt_idx" ON "ConsumedChallenge"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "VirtualUser_siteId_publicKey_key" ON "VirtualUser"("siteId", "publicKey");

-- CreateIndex
CREATE INDEX "Comment_siteId_pageSlug_originServerTs_idx" ON "Comment"("siteId", "pageSlug", "originServerTs");

-- CreateIndex
CREATE INDEX "Comment_submissionId_idx" ON "Comment"("submissionId");

-- CreateIndex
CREATE INDEX "LiveEvent_siteId_pageSlug_id_idx" ON "LiveEvent"("siteId", "pageSlug", "id");

-- CreateIndex
CREATE INDEX "LiveEvent_createdAt_idx" ON "LiveEvent"("createdAt");

