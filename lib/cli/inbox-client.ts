import { buildReceipt, buildStopReceipt, commandPayload, type CommandKind, type Receipt, type ReplyReceipt, type ResumeReceipt, type StopReceipt } from "../protocol/commands";
import { AppError } from "../protocol/errors";
import type { Question } from "../protocol/question";
import type { CommandService } from "../server/ledger/command-ledger";
import type { Db } from "../server/store/db/client";
import type { QuestionService } from "../server/questions/question-service";
import { createRunReads } from "../server/store/runs/run-reads";

/**
 * Commands through the durable inbox, for when no server runs: recorded in the database now,
 * applied by the server when it runs (it checks about every second). Waits up to `waitMs` for
 * the receipt of that application.
 */
export function createInboxClient({ db, commands, questions, waitMs }: { db: Db; commands: CommandService; questions: QuestionService; waitMs: number }) {
  async function queue<R extends Receipt>(kind: CommandKind, payload: unknown, queued: R): Promise<R> {
    const stored = await commands.enqueue({ commandId: queued.commandId, kind, payload }, queued);
    if (stored.apply_state !== "queued") return stored;
    return (await waitForApply<R>(queued.commandId)) ?? stored;
  }

  async function waitForApply<R extends Receipt>(commandId: string): Promise<R | null> {
    const until = Date.now() + waitMs;
    while (Date.now() < until) {
      const receipt = await commands.getReceipt<R>({ commandId });
      if (receipt && receipt.apply_state !== "queued") return receipt;
      await new Promise((r) => setTimeout(r, 150));
    }
    return null;
  }

  async function runExists(runId: string): Promise<void> {
    if ((await createRunReads(db.exec).find(runId)) === undefined) throw new AppError("not_found:run", `No run with id "${runId}".`);
  }

  return {
    findQuestion: ({ runId, pendingId }: { runId: string; pendingId: string }): Promise<Question> => questions.findByPendingId({ runId, pendingId }),

    async sendInput(question: Question, { value, input, digest, commandId }: { value: unknown; input?: Record<string, unknown>; digest: string | null; commandId: string }): Promise<ReplyReceipt> {
      // Refuse here what the server would refuse, so nothing unusable (or oversized) is recorded.
      await questions.checkReply({ question, value });
      const payload = commandPayload("send_input", { questionId: question.id, value, input, digest });
      return queue("send_input", payload, buildReceipt<ReplyReceipt>({ commandId, kind: "send_input", apply_state: "queued", outcome: "queued", question }));
    },

    async decline(question: Question, { message, digest, commandId }: { message: string | null; digest: string | null; commandId: string }): Promise<ReplyReceipt> {
      const payload = commandPayload("reject_input", { questionId: question.id, message, digest });
      return queue("reject_input", payload, buildReceipt<ReplyReceipt>({ commandId, kind: "reject_input", apply_state: "queued", outcome: "queued", question }));
    },

    async resume(runId: string, commandId: string): Promise<ResumeReceipt> {
      await runExists(runId);
      return queue("resume", commandPayload("resume", { runId }), buildReceipt<ResumeReceipt>({ commandId, kind: "resume", apply_state: "queued", runId }));
    },

    async stop(runId: string, commandId: string): Promise<StopReceipt> {
      await runExists(runId);
      return queue("stop_run", commandPayload("stop_run", { runId }), buildStopReceipt({ commandId, runId, outcome: "queued" }));
    },
  };
}

export type InboxClient = ReturnType<typeof createInboxClient>;
