-- CreateIndex
CREATE INDEX "Submission_status_completedAt_idx" ON "Submission"("status", "completedAt");

