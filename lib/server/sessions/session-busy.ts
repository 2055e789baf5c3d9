import { AppError } from "../../protocol/errors";

/** Why a session refuses a new chat turn: one wording, whichever check finds it. */

/** A question of the session waits: its card is the answer box. */
export const sessionWaitingError = (waiting: { id: string; runId: string; prompt: string }) =>
  new AppError("session_busy", `This session is waiting for an answer to "${waiting.prompt}". Answer it, or stop its run, before starting a new turn.`, {
    details: { questionId: waiting.id, runId: waiting.runId },
  });

/** The session's last turn is still working. */
export const sessionWorkingError = (runId: string) =>
  new AppError("session_busy", "This session is still working on its last message. Wait for it, or stop it, before starting a new turn.", { details: { runId } });
