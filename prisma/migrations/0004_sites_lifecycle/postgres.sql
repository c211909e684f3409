-- CreateTable
CREATE TABLE "SiteVerification" (
    "id" SERIAL NOT NULL,
    "siteId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "methods" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SiteVerification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SeenRequestSignature" (
    "digest" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SeenRequestSignature_pkey" PRIMARY KEY ("digest")
);

-- CreateTable
CREATE TABLE "Retirement" (
    "id" SERIAL NOT NULL,
    "targetType" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL DEFAULT '',
    "state" TEXT NOT NULL DEFAULT 'retiring',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Retirement_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SiteVerification_siteId_origin_key" ON "SiteVerification"("siteId", "origin");

-- CreateIndex
CREATE INDEX "SeenRequestSignature_expiresAt_idx" ON "SeenRequestSignature"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "Retirement_targetType_siteId_pageSlug_key" ON "Retirement"("targetType", "siteId", "pageSlug");

-- AddForeignKey
ALTER TABLE "SiteVerification" ADD CONSTRAINT "SiteVerification_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

