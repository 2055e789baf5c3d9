-- CreateTable
CREATE TABLE "QuestionVote" (
    "questionId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "feedback" TEXT,
    "surface" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("questionId", "userId"),
    CONSTRAINT "QuestionVote_questionId_fkey" FOREIGN KEY ("questionId") REFERENCES "Question" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "admin" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "addedBy" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "SignInLink" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "SessionMember" (
    "sessionId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "addedBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("sessionId", "userId"),
    CONSTRAINT "SessionMember_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "ChatSession" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Question" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sessionId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "options" TEXT NOT NULL DEFAULT '[]',
    "multi" BOOLEAN NOT NULL DEFAULT false,
    "allowCustom" BOOLEAN NOT NULL DEFAULT false,
    "detail" TEXT,
    "defaultValue" TEXT,
    "owner" TEXT NOT NULL,
    "seq" INTEGER NOT NULL DEFAULT 0,
    "pendingId" TEXT NOT NULL,
    "targetDigest" TEXT NOT NULL,
    "replySchema" TEXT,
    "approval" TEXT,
    "status" TEXT NOT NULL,
    "answer" TEXT,
    "feedback" TEXT,
    "closedBy" TEXT,
    "closedByUser" TEXT,
    "closedByRule" TEXT,
    "answerers" TEXT,
    "approvals" TEXT,
    "escalate" TEXT,
    "escalated" INTEGER NOT NULL DEFAULT 0,
    "escalateAt" DATETIME,
    "editedInput" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME,
    "closedAt" DATETIME,
    CONSTRAINT "Question_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "ChatSession" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Question_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Question" ("allowCustom", "answer", "approval", "closedAt", "closedBy", "createdAt", "defaultValue", "detail", "expiresAt", "feedback", "id", "kind", "multi", "options", "owner", "pendingId", "prompt", "replySchema", "runId", "seq", "sessionId", "status", "targetDigest") SELECT "allowCustom", "answer", "approval", "closedAt", "closedBy", "createdAt", "defaultValue", "detail", "expiresAt", "feedback", "id", "kind", "multi", "options", "owner", "pendingId", "prompt", "replySchema", "runId", "seq", "sessionId", "status", "targetDigest" FROM "Question";
DROP TABLE "Question";
ALTER TABLE "new_Question" RENAME TO "Question";
CREATE UNIQUE INDEX "Question_pendingId_key" ON "Question"("pendingId");
CREATE INDEX "Question_sessionId_status_idx" ON "Question"("sessionId", "status");
CREATE INDEX "Question_runId_status_idx" ON "Question"("runId", "status");
CREATE INDEX "Question_status_expiresAt_idx" ON "Question"("status", "expiresAt");
CREATE INDEX "Question_status_escalateAt_idx" ON "Question"("status", "escalateAt");
CREATE INDEX "Question_closedAt_idx" ON "Question"("closedAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "SignInLink_userId_idx" ON "SignInLink"("userId");

-- CreateIndex
CREATE INDEX "SessionMember_userId_idx" ON "SessionMember"("userId");

-- People: every owner an earlier version knew (of an API token, a chat or a device) becomes a person, so their tokens and cookies keep working.
INSERT INTO "User" ("id", "admin", "addedBy")
SELECT "ownerId", false, 'local' FROM (
    SELECT "ownerId" FROM "ApiToken"
    UNION SELECT "ownerId" FROM "ChatSession"
    UNION SELECT "ownerId" FROM "PushSubscription"
) AS "owners"
WHERE "ownerId" <> 'local';
