-- CreateIndex
CREATE INDEX "MatrixEvent_roomId_type_stateKey_originServerTs_eventId_idx" ON "MatrixEvent"("roomId", "type", "stateKey", "originServerTs", "eventId");

