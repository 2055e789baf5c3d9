-- Who started a run: they may stop it, beside the chat's owner and administrators.
ALTER TABLE "Run" ADD COLUMN "starterId" TEXT;
