-- A chat's history pages its closed questions by the time they were asked (GET /api/sessions/{id}/history).
CREATE INDEX "Question_sessionId_createdAt_idx" ON "Question"("sessionId", "createdAt");
