-- CreateTable
CREATE TABLE "SpentOpenIdToken" (
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SpentOpenIdToken_pkey" PRIMARY KEY ("tokenHash")
);

-- CreateIndex
CREATE INDEX "SpentOpenIdToken_expiresAt_idx" ON "SpentOpenIdToken"("expiresAt");

