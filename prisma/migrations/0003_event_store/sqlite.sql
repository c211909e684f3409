-- DropTable
PRAGMA foreign_keys=off;
DROP TABLE "AppserviceTransaction";
PRAGMA foreign_keys=on;

-- CreateTable
CREATE TABLE "RoomState" (
    "roomId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "stateKey" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "originServerTs" BIGINT NOT NULL,
    "content" TEXT NOT NULL,

    PRIMARY KEY ("roomId", "type", "stateKey")
);

-- CreateTable
CREATE TABLE "MatrixEvent" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "eventId" TEXT NOT NULL,
    "roomId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "sender" TEXT NOT NULL,
    "stateKey" TEXT,
    "originServerTs" BIGINT NOT NULL,
    "relatesTo" TEXT,
    "relType" TEXT,
    "json" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'applied',
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Reaction" (
    "eventId" TEXT NOT NULL PRIMARY KEY,
    "targetEventId" TEXT NOT NULL,
    "roomId" TEXT NOT NULL,
    "sender" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "originServerTs" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "ProjectionRepair" (
    "targetEventId" TEXT NOT NULL PRIMARY KEY,
    "roomId" TEXT,
    "eventType" TEXT,
    "reason" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "MatrixEvent_eventId_key" ON "MatrixEvent"("eventId");

-- CreateIndex
CREATE INDEX "MatrixEvent_roomId_seq_idx" ON "MatrixEvent"("roomId", "seq");

-- CreateIndex
CREATE INDEX "MatrixEvent_relatesTo_idx" ON "MatrixEvent"("relatesTo");

-- CreateIndex
CREATE INDEX "MatrixEvent_status_idx" ON "MatrixEvent"("status");

-- CreateIndex
CREATE INDEX "Reaction_targetEventId_key_idx" ON "Reaction"("targetEventId", "key");

-- CreateIndex
CREATE INDEX "ProjectionRepair_status_idx" ON "ProjectionRepair"("status");

