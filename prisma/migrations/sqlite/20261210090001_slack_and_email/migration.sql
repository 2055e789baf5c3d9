-- Slack and email as answer surfaces: people linked to their Slack user and their addresses, a chat's Slack channel, and each question's Slack messages and mails (the outboxes that send them; they go with their question).
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
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "SlackChannel_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "ChatSession" ("id") ON DELETE CASCADE ON UPDATE CASCADE
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "SlackMessage_questionId_fkey" FOREIGN KEY ("questionId") REFERENCES "Question" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "PersonEmail" (
    "personId" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "questions" BOOLEAN NOT NULL DEFAULT true,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "EmailMessage" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "questionId" TEXT NOT NULL,
    "personId" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "sentAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "EmailMessage_questionId_fkey" FOREIGN KEY ("questionId") REFERENCES "Question" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "SlackLink_slackUserId_key" ON "SlackLink"("slackUserId");

-- CreateIndex
CREATE INDEX "SlackMessage_status_nextAttemptAt_idx" ON "SlackMessage"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "SlackMessage_questionId_channel_key" ON "SlackMessage"("questionId", "channel");

-- CreateIndex
CREATE UNIQUE INDEX "PersonEmail_email_key" ON "PersonEmail"("email");

-- CreateIndex
CREATE INDEX "EmailMessage_status_nextAttemptAt_idx" ON "EmailMessage"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "EmailMessage_questionId_personId_key" ON "EmailMessage"("questionId", "personId");
