-- Slack as an answer surface: people linked to their Slack user, a chat's channel, and each question's message (the outbox that posts and updates it).
-- CreateTable
CREATE TABLE "SlackLink" (
    "personId" TEXT NOT NULL,
    "slackUserId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SlackLink_pkey" PRIMARY KEY ("personId")
);

-- CreateTable
CREATE TABLE "SlackChannel" (
    "sessionId" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SlackChannel_pkey" PRIMARY KEY ("sessionId")
);

-- CreateTable
CREATE TABLE "SlackMessage" (
    "id" TEXT NOT NULL,
    "questionId" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "ts" TEXT,
    "postedIn" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "synced" INTEGER NOT NULL DEFAULT 0,
    "syncedAt" TIMESTAMP(3),
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SlackMessage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SlackLink_slackUserId_key" ON "SlackLink"("slackUserId");

-- CreateIndex
CREATE INDEX "SlackMessage_status_nextAttemptAt_idx" ON "SlackMessage"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "SlackMessage_questionId_channel_key" ON "SlackMessage"("questionId", "channel");
