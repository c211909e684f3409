-- CreateTable
CREATE TABLE "SpentOpenIdToken" (
    "tokenHash" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "SpentOpenIdToken_expiresAt_idx" ON "SpentOpenIdToken"("expiresAt");

