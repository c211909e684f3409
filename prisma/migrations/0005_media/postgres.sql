-- CreateTable
CREATE TABLE "MediaUpload" (
    "url" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "pageSlug" TEXT NOT NULL,
    "authorPublicKey" TEXT NOT NULL,
    "mimetype" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "filename" TEXT,
    "width" INTEGER,
    "height" INTEGER,
    "sha256" TEXT NOT NULL,
    "voice" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MediaUpload_pkey" PRIMARY KEY ("url")
);

-- CreateTable
CREATE TABLE "VisitorAvatar" (
    "userId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "VisitorAvatar_pkey" PRIMARY KEY ("userId")
);

-- CreateIndex
CREATE INDEX "MediaUpload_siteId_authorPublicKey_idx" ON "MediaUpload"("siteId", "authorPublicKey");

-- AddForeignKey
ALTER TABLE "MediaUpload" ADD CONSTRAINT "MediaUpload_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

