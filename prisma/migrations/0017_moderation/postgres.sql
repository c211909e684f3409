-- AlterTable
ALTER TABLE "Submission" ADD COLUMN     "heldReason" TEXT,
ADD COLUMN     "reviewedBy" TEXT;

-- CreateTable
CREATE TABLE "SiteBan" (
    "siteId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "publicKey" TEXT,
    "reason" TEXT,
    "bannedBy" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SiteBan_pkey" PRIMARY KEY ("siteId","userId")
);

-- CreateTable
CREATE TABLE "ModerationSetting" (
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL DEFAULT '',
    "mode" TEXT NOT NULL,
    "words" TEXT NOT NULL DEFAULT '[]',
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ModerationSetting_pkey" PRIMARY KEY ("siteId","pageSlug")
);

-- CreateIndex
CREATE INDEX "SiteBan_siteId_createdAt_userId_idx" ON "SiteBan"("siteId", "createdAt", "userId");

-- CreateIndex
CREATE INDEX "SiteBan_expiresAt_idx" ON "SiteBan"("expiresAt");

-- CreateIndex
CREATE INDEX "Submission_siteId_status_createdAt_id_idx" ON "Submission"("siteId", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Comment_siteId_authorPublicKey_idx" ON "Comment"("siteId", "authorPublicKey");

