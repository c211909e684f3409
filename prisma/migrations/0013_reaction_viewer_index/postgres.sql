-- DropIndex
DROP INDEX "Reaction_targetEventId_key_idx";

-- CreateIndex
CREATE INDEX "Reaction_targetEventId_sender_key_idx" ON "Reaction"("targetEventId", "sender", "key");

