-- Slack and email as answer surfaces: people linked to their Slack user and their addresses, a chat's Slack channel, and each question's Slack messages and mails (the outboxes that send them; they go with their question).
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

-- CreateTable
CREATE TABLE "PersonEmail" (
    "personId" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "questions" BOOLEAN NOT NULL DEFAULT true,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PersonEmail_pkey" PRIMARY KEY ("personId")
);

-- CreateTable
CREATE TABLE "EmailMessage" (
    "id" TEXT NOT NULL,
    "questionId" TEXT NOT NULL,
    "personId" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "sentAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EmailMessage_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "SlackChannel" ADD CONSTRAINT "SlackChannel_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "ChatSession"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SlackMessage" ADD CONSTRAINT "SlackMessage_questionId_fkey" FOREIGN KEY ("questionId") REFERENCES "Question"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EmailMessage" ADD CONSTRAINT "EmailMessage_questionId_fkey" FOREIGN KEY ("questionId") REFERENCES "Question"("id") ON DELETE CASCADE ON UPDATE CASCADE;
