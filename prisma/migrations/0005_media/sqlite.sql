-- CreateTable
CREATE TABLE "MediaUpload" (
    "url" TEXT NOT NULL PRIMARY KEY,
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "MediaUpload_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "VisitorAvatar" (
    "userId" TEXT NOT NULL PRIMARY KEY,
    "url" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "MediaUpload_siteId_authorPublicKey_idx" ON "MediaUpload"("siteId", "authorPublicKey");

