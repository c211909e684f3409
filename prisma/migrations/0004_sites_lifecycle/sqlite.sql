-- CreateTable
CREATE TABLE "SiteVerification" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "siteId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "methods" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "SiteVerification_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SeenRequestSignature" (
    "digest" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Retirement" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "targetType" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL DEFAULT '',
    "state" TEXT NOT NULL DEFAULT 'retiring',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "SiteVerification_siteId_origin_key" ON "SiteVerification"("siteId", "origin");

-- CreateIndex
CREATE INDEX "SeenRequestSignature_expiresAt_idx" ON "SeenRequestSignature"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "Retirement_targetType_siteId_pageSlug_key" ON "Retirement"("targetType", "siteId", "pageSlug");

