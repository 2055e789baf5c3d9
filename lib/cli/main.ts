/**
 * `parley`: the operator's command line. It reads and writes the database directly, so it works
 * while the server is down: answers it records are applied by the server when it runs.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { AppError } from "../protocol/errors";
import type { Receipt, ReplyReceipt } from "../protocol/question";
import { createCommandService } from "../server/commands/command-service";
import { createDb, type Db } from "../server/db/client";
import { sqliteFilePath } from "../server/db/migrate";
import { toMessage } from "../server/db/mappers";
import { DomainEvents } from "../server/events";
import { createQuestionService } from "../server/questions/question-service";
import { loadRunDetail } from "../server/runs/run-detail";
import { createSessionService } from "../server/sessions/session-service";
import { formatInspect, formatPending, formatReceipt, formatSessions } from "./format";

const USAGE = `Usage: parley <command> [options]

Commands:
  sessions                          list chat sessions with their pending questions
  pending [--session ID]            list pending questions
  inspect RUN_ID                    a run: state, journal, pending questions and how to answer them
  send-input RUN_ID PENDING_ID --value-json JSON [--digest D] [--command-id C]
                                    answer a pending question (recorded now, applied by the server)
  decline RUN_ID PENDING_ID [--message TEXT] [--digest D] [--command-id C]
                                    decline a pending question
  resume RUN_ID [--command-id C]    ask the server to load an active run into a worker again

Options:
  --json          print JSON instead of text
  --wait MS       how long send-input, decline and resume wait for the server to apply (default 3000)
  --database URL  the SQLite database (default: DATABASE_URL, else file:./data/parley.db)
`;

class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      session: { type: "string" },
      "value-json": { type: "string" },
      message: { type: "string" },
      digest: { type: "string" },
      "command-id": { type: "string" },
      wait: { type: "string", default: "3000" },
      database: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [command, ...args] = positionals;
  if (values.help || !command || command === "help") {
    process.stdout.write(USAGE);
    return command || values.help ? 0 : 2;
  }
  const print = (data: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(data, null, 2)}\n` : `${text}\n`);
  const databaseUrl = values.database ?? process.env.DATABASE_URL ?? "file:./data/parley.db";
  const file = sqliteFilePath(databaseUrl);
  if (!existsSync(file)) throw new AppError("unavailable", `No Parley database at ${file}. Start the server once, or pass --database.`);
  const db = await createDb(databaseUrl);
  const commands = createCommandService({ db });
  // Read-only use of the server's services: no timers start, no events reach anyone.
  const questions = createQuestionService({ db, events: new DomainEvents(), commands });
  const waitMs = Number(values.wait);
  try {
    switch (command) {
      case "sessions": {
        const sessions = await createSessionService({ db, events: new DomainEvents() }).listSessions();
        print(sessions, formatSessions(sessions));
        return 0;
      }
      case "pending": {
        const pending = await questions.listPending(values.session ? { sessionId: values.session } : {});
        print(pending, formatPending(pending));
        return 0;
      }
      case "inspect": {
        const [runId] = need(args, 1, "inspect RUN_ID");
        const detail = await loadRunDetail(db, questions, runId!);
        const messages = (await db.message.findMany({ where: { runId }, orderBy: { createdAt: "asc" } })).map(toMessage);
        const data = { run: detail, journal: detail.journal, pendingQuestions: detail.pendingQuestions, messages };
        print(data, formatInspect(data));
        return 0;
      }
      case "send-input":
      case "decline": {
        const [runId, pendingId] = need(args, 2, `${command} RUN_ID PENDING_ID`);
        const question = await questions.findByPendingId({ runId: runId!, pendingId: pendingId! });
        const commandId = values["command-id"] ?? randomUUID();
        const digest = values.digest ?? null;
        let kind: "send_input" | "reject_input";
        let payload: Record<string, unknown>;
        if (command === "send-input") {
          const raw = values["value-json"];
          if (raw === undefined) throw new UsageError("send-input needs --value-json, e.g. --value-json '\"staging\"'");
          let value: unknown;
          try {
            value = JSON.parse(raw);
          } catch {
            throw new AppError("reply_not_json", `--value-json is not valid JSON: ${raw}`);
          }
          // Refuse here what the server would refuse, so nothing unusable is recorded.
          if (question.status === "pending") await questions.checkReply({ question, value });
          kind = "send_input";
          payload = { questionId: question.id, digest, value };
        } else {
          kind = "reject_input";
          payload = { questionId: question.id, digest, message: values.message ?? null };
        }
        const queued: ReplyReceipt = { commandId, kind, record_state: "durably_recorded", apply_state: "queued", outcome: "queued", question };
        await commands.enqueue({ commandId, kind, payload }, queued);
        const receipt = (await waitForApply(db, commandId, waitMs)) ?? queued;
        print(receipt, formatReceipt(receipt));
        return receipt.apply_state === "rejected" ? 1 : 0;
      }
      case "resume": {
        const [runId] = need(args, 1, "resume RUN_ID");
        const run = await db.run.findUnique({ where: { id: runId } });
        if (!run) throw new AppError("not_found:run", `No run with id "${runId}".`);
        const commandId = values["command-id"] ?? randomUUID();
        const queued: Receipt = { commandId, kind: "resume", record_state: "durably_recorded", apply_state: "queued", runId };
        await commands.enqueue({ commandId, kind: "resume", payload: { runId } }, queued);
        const receipt = (await waitForApply(db, commandId, waitMs)) ?? queued;
        print(receipt, formatReceipt(receipt));
        return receipt.apply_state === "rejected" ? 1 : 0;
      }
      default:
        throw new UsageError(`Unknown command "${command}".`);
    }
  } finally {
    await db.$disconnect();
  }
}

function need(args: string[], count: number, usage: string): string[] {
  if (args.length < count) throw new UsageError(`Usage: parley ${usage}`);
  return args;
}

/** The server applies queued commands within about a second when it runs; wait a little for its receipt. */
async function waitForApply(db: Db, commandId: string, ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const row = await db.command.findUnique({ where: { id: commandId } });
    if (row && row.applyState !== "queued" && row.receipt) return JSON.parse(row.receipt) as ReplyReceipt;
    await new Promise((r) => setTimeout(r, 150));
  }
  return null;
}

export async function run(argv: string[]): Promise<void> {
  try {
    process.exitCode = await main(argv);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (err instanceof AppError) {
      process.stderr.write(`error (${err.code}): ${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`error: ${(err as Error).message ?? err}\n`);
      process.exitCode = 1;
    }
  }
}
