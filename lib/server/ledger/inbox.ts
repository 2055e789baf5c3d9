import { LOCAL_OWNER } from "../../protocol/access";
import { isQueueable, parseCommand, type CommandKind, type QueueableCommand, type Receipt } from "../../protocol/commands";
import { AppError } from "../../protocol/errors";
import type { CommandService } from "./command-ledger";
import { log as serverLog, type Logger } from "../log";

/** What the inbox applies queued commands through: the same services every transport calls. */
export interface InboxTargets {
  commands: Pick<CommandService, "listQueued" | "markRejected">;
  questions: {
    reply(args: { id: string; value: unknown; input?: Record<string, unknown>; until?: string; digest: string | null; commandId: string; by: "cli" }): Promise<Receipt>;
    reject(args: { id: string; message: string | null; digest: string | null; commandId: string; by: "cli" }): Promise<Receipt>;
  };
  resume(args: { runId: string; commandId: string }): Promise<Receipt>;
  stop?(args: { id: string; commandId: string; by: "cli" }): Promise<unknown>;
  /** How often to look for commands the CLI recorded. */
  pollMs?: number;
  log?: Pick<Logger, "error">;
}

/**
 * A permanent error rejects a queued command for good: the command's own fault (a 4xx: its target
 * closed or is unknown, it is invalid, it conflicts). Anything else — a server-side AppError
 * (internal, unavailable, database_busy), a locked database, a timeout, an unexpected error — may pass.
 */
export function isPermanent(err: unknown): boolean {
  return err instanceof AppError && err.status < 500;
}

/**
 * The inbox of commands the CLI recorded while no server ran (or could be reached), applied in
 * the order they were recorded. Applying claims the queued row inside the applying transaction,
 * so two appliers (an overlapping poll, a second server) apply each command once; a transient
 * failure leaves the command queued for the next poll.
 */
/** The CLI that records commands straight into the database is the administrator's, on the server's machine. */
const THE_CLI = { person: LOCAL_OWNER, admin: true };

export function createInbox({ commands, questions, resume, stop, pollMs = 1_000, log = serverLog }: InboxTargets) {
  /** Commands whose transient failure was logged, so a lasting fault logs once, not every poll. */
  const failing = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<number> | null = null;

  async function applyOne(id: string, kind: CommandKind, payload: unknown): Promise<void> {
    if (!isQueueable(kind)) throw new AppError("bad_request", `Commands of kind ${kind} cannot be queued.`);
    const by = "cli" as const;
    const run: { [K in QueueableCommand]: () => Promise<unknown> } = {
      send_input: async () => {
        const { questionId, value, input, until, digest } = parseCommand("send_input", payload);
        return questions.reply({ id: questionId, value, input, until, digest, commandId: id, by, ...THE_CLI });
      },
      reject_input: async () => {
        const { questionId, message, digest } = parseCommand("reject_input", payload);
        return questions.reject({ id: questionId, message, digest, commandId: id, by, ...THE_CLI });
      },
      resume: async () => resume({ runId: parseCommand("resume", payload).runId, commandId: id }),
      stop_run: async () => {
        if (!stop) throw new AppError("unavailable", "This server cannot apply queued stops yet.");
        return stop({ id: parseCommand("stop_run", payload).runId, commandId: id, by: "cli" });
      },
    };
    await run[kind]();
  }

  function noteTransient(id: string, kind: CommandKind, err: unknown) {
    if (failing.has(id)) return;
    failing.add(id);
    log.error({ commandId: id, err }, `[inbox] command ${id} (${kind}) failed; it stays queued and is retried`);
  }

  async function reject(id: string, kind: CommandKind, error: AppError): Promise<boolean> {
    try {
      await commands.markRejected({ commandId: id, kind, error: { code: error.code, message: error.message } });
      failing.delete(id);
      return true;
    } catch (err) {
      noteTransient(id, kind, err);
      return false;
    }
  }

  /** One pass over the queued commands; returns how many it settled (applied or rejected). */
  async function applyOnce(): Promise<number> {
    const queued = await commands.listQueued();
    let settled = 0;
    for (const cmd of queued) {
      try {
        await applyOne(cmd.id, cmd.kind, cmd.payload);
        failing.delete(cmd.id);
        settled++;
      } catch (err) {
        if (isPermanent(err) && (await reject(cmd.id, cmd.kind, err as AppError))) settled++;
        else noteTransient(cmd.id, cmd.kind, err);
      }
    }
    return settled;
  }

  function poll() {
    if (polling) return;
    polling = applyOnce()
      .catch((err) => {
        log.error({ err }, "[inbox] could not read queued commands; retrying");
        return 0;
      })
      .finally(() => (polling = null));
  }

  return {
    applyOnce,
    start() {
      if (timer) return;
      timer = setInterval(poll, pollMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await polling;
    },
  };
}

export type Inbox = ReturnType<typeof createInbox>;
