-- AlterTable
ALTER TABLE "Run" ADD COLUMN "turnOf" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Run_turnOf_key" ON "Run"("turnOf");

