-- Slack as an answer surface: people linked to their Slack user, a chat's channel, and each question's message (the outbox that posts and updates it).
-- CreateTable
CREATE TABLE "SlackLink" (
    "personId" TEXT NOT NULL PRIMARY KEY,
    "slackUserId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "SlackChannel" (
    "sessionId" TEXT NOT NULL PRIMARY KEY,
    "channel" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "SlackMessage" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "questionId" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "ts" TEXT,
    "postedIn" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "synced" INTEGER NOT NULL DEFAULT 0,
    "syncedAt" DATETIME,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "SlackLink_slackUserId_key" ON "SlackLink"("slackUserId");

-- CreateIndex
CREATE INDEX "SlackMessage_status_nextAttemptAt_idx" ON "SlackMessage"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "SlackMessage_questionId_channel_key" ON "SlackMessage"("questionId", "channel");
