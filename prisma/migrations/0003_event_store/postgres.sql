-- DropTable
DROP TABLE "AppserviceTransaction";

-- CreateTable
CREATE TABLE "RoomState" (
    "roomId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "stateKey" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "originServerTs" BIGINT NOT NULL,
    "content" TEXT NOT NULL,

    CONSTRAINT "RoomState_pkey" PRIMARY KEY ("roomId","type","stateKey")
);

-- CreateTable
CREATE TABLE "MatrixEvent" (
    "seq" SERIAL NOT NULL,
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
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MatrixEvent_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "Reaction" (
    "eventId" TEXT NOT NULL,
    "targetEventId" TEXT NOT NULL,
    "roomId" TEXT NOT NULL,
    "sender" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "originServerTs" BIGINT NOT NULL,

    CONSTRAINT "Reaction_pkey" PRIMARY KEY ("eventId")
);

-- CreateTable
CREATE TABLE "ProjectionRepair" (
    "targetEventId" TEXT NOT NULL,
    "roomId" TEXT,
    "eventType" TEXT,
    "reason" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ProjectionRepair_pkey" PRIMARY KEY ("targetEventId")
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

