-- AlterTable
ALTER TABLE "Question" ADD COLUMN     "answerers" TEXT,
ADD COLUMN     "approvals" TEXT,
ADD COLUMN     "closedByRule" TEXT,
ADD COLUMN     "closedByUser" TEXT,
ADD COLUMN     "editedInput" TEXT,
ADD COLUMN     "escalate" TEXT,
ADD COLUMN     "escalateAt" TIMESTAMP(3),
ADD COLUMN     "escalated" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "QuestionVote" (
    "questionId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "feedback" TEXT,
    "surface" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "QuestionVote_pkey" PRIMARY KEY ("questionId","userId")
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "admin" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "addedBy" TEXT NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SignInLink" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SignInLink_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SessionMember" (
    "sessionId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "addedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SessionMember_pkey" PRIMARY KEY ("sessionId","userId")
);

-- CreateIndex
CREATE INDEX "SignInLink_userId_idx" ON "SignInLink"("userId");

-- CreateIndex
CREATE INDEX "SessionMember_userId_idx" ON "SessionMember"("userId");

-- CreateIndex
CREATE INDEX "Question_status_escalateAt_idx" ON "Question"("status", "escalateAt");

-- CreateIndex
CREATE INDEX "Question_closedAt_idx" ON "Question"("closedAt");

-- AddForeignKey
ALTER TABLE "QuestionVote" ADD CONSTRAINT "QuestionVote_questionId_fkey" FOREIGN KEY ("questionId") REFERENCES "Question"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SessionMember" ADD CONSTRAINT "SessionMember_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "ChatSession"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- People: every owner an earlier version knew (of an API token, a chat or a device) becomes a person, so their tokens and cookies keep working.
INSERT INTO "User" ("id", "admin", "addedBy")
SELECT "ownerId", false, 'local' FROM (
    SELECT "ownerId" FROM "ApiToken"
    UNION SELECT "ownerId" FROM "ChatSession"
    UNION SELECT "ownerId" FROM "PushSubscription"
) AS "owners"
WHERE "ownerId" <> 'local';
