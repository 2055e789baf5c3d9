/**
 * `parley`: the operator's command line. Commands (send-input, decline, resume, stop) go through
 * the running server's REST API when one runs for the database; otherwise they are recorded in
 * the database's durable inbox and applied by the server when it runs. Reads (sessions, pending,
 * inspect) read the database directly, so they work while the server is down.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { clip } from "../protocol/bounded-text";
import { RejectBodySchema, ReplyBodySchema, type Receipt } from "../protocol/commands";
import { AppError, parseOrThrow } from "../protocol/errors";
import type { Question } from "../protocol/question";
import { createDb, type Db } from "../server/db/client";
import { engineOf } from "../server/db/engine";
import { sqliteFilePath } from "../server/db/migrate";
import { describeDatabase } from "../server/commands/server-file";
import { toMessage } from "../server/db/mappers";
import { createDomainServices, type DomainServices } from "../server/domain-services";
import { loadRunDetail } from "../server/runs/run-detail";
import { formatInspect, formatPending, formatReceipt, formatSessions } from "./format";
import { createInboxClient } from "./inbox-client";
import { SIGN_OUT_USAGE, signOutEverywhereCommand } from "./sign-out-command";
import { TOKEN_USAGE, tokenCommand } from "./token-commands";
import { ROTATE_USAGE, rotateTokenCommand } from "./rotate-token-command";
import { BACKUP_USAGE, backupCommand, restoreCommand } from "./backup-commands";
import { createServerClient, findServer, ServerUnreachable, type ServerClient } from "./server-client";

const USAGE = `Usage: parley <command> [options]

Commands:
  chat [SESSION] [--continue]       chat in this terminal: a new chat, SESSION (an id, a prefix of
                                    one, or a title), or with --continue the most recent one
  sessions                          list chat sessions with their pending questions
  pending [--session ID]            list pending questions
  inspect RUN_ID                    a run: state, journal, pending questions and how to answer them
  send-input RUN_ID PENDING_ID --value-json JSON [--digest D] [--command-id C]
                                    answer a pending question
  decline RUN_ID PENDING_ID [--message TEXT] [--digest D] [--command-id C]
                                    decline a pending question
  resume RUN_ID [--command-id C]    load an active run into a worker again
  stop RUN_ID [--command-id C]      stop a run and its child runs
${TOKEN_USAGE}
${ROTATE_USAGE}
${BACKUP_USAGE}
${SIGN_OUT_USAGE}

send-input, decline, resume and stop go through the running server (found beside the database,
or --server); with none running they are recorded in the database and applied when it starts.

Options:
  --json          print JSON instead of text
  --server URL    the server to talk to (also --url; default: PARLEY_URL, else the one running for the database)
  --token T       the server token or an API token for --server (default: PARLEY_TOKEN, else the local server's)
  --wait MS       with no server running: how long to wait for a server to apply the command (default 3000)
  --database URL  the database: a SQLite file: URL or a postgresql:// URL (default: DATABASE_URL, else file:./data/parley.db)
`;

class UsageError extends Error {}

type Target = "send-input" | "decline" | "resume" | "stop";

/** One command, as the server or the inbox carries it out. */
interface Commander {
  findQuestion(args: { runId: string; pendingId: string }): Promise<Question>;
  sendInput(question: Question, args: { value: unknown; digest: string | null; commandId: string }): Promise<Receipt>;
  decline(question: Question, args: { message: string | null; digest: string | null; commandId: string }): Promise<Receipt>;
  resume(runId: string, commandId: string): Promise<Receipt>;
  stop(runId: string, commandId: string): Promise<Receipt>;
}

function throughServer(client: ServerClient): Commander {
  return {
    findQuestion: (args) => client.findQuestion(args),
    sendInput: (question, body) => client.reply(question.id, body),
    decline: (question, body) => client.reject(question.id, body),
    resume: (runId, commandId) => client.resume(runId, { commandId }),
    stop: async (runId, commandId) => (await client.stop(runId, { commandId })).receipt,
  };
}

type Local = { db: Db } & DomainServices;

async function openLocal(databaseUrl: string): Promise<Local> {
  const file = engineOf(databaseUrl) === "sqlite" ? sqliteFilePath(databaseUrl) : null;
  if (file && !existsSync(file)) throw new AppError("unavailable", `No Parley database at ${file}. Start the server once, or pass --database.`);
  const db = await createDb(databaseUrl);
  if (!file) {
    const [row] = await db.$queryRawUnsafe<Array<{ migrated: boolean }>>(`SELECT to_regclass('"ChatSession"') IS NOT NULL AS migrated`);
    if (!row?.migrated) {
      await db.$disconnect();
      throw new AppError("unavailable", `No Parley tables in ${describeDatabase(databaseUrl)}. Start the server once (it migrates the database), or pass --database.`);
    }
  }
  // The server's own services (the same composition), used read-only or to record commands.
  return { db, ...createDomainServices({ db }) };
}

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
      server: { type: "string" },
      url: { type: "string" },
      continue: { type: "boolean", short: "c", default: false },
      token: { type: "string" },
      name: { type: "string" },
      owner: { type: "string" },
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

  const explicit = values.server ?? values.url ?? process.env.PARLEY_URL;
  // An empty PARLEY_TOKEN is no token (the local server's announced one is used then).
  const token = values.token ?? (process.env.PARLEY_TOKEN || null);
  switch (command) {
    case "chat": {
      if (args.length > 1) throw new UsageError("Usage: parley chat [SESSION] [--continue]");
      const server = await findServer({ databaseUrl, explicit, token });
      if (!server) throw new AppError("unavailable", `No Parley server is running for ${describeDatabase(databaseUrl)}. Start one with \`npm start\`, or pass --url.`);
      // ink draws only a last frame when it believes it runs in CI; a person at a terminal is not CI. It reads this when loaded.
      if (process.stdout.isTTY) for (const name of ["CI", "CONTINUOUS_INTEGRATION"]) delete process.env[name];
      // React's development build (read when loaded too) is for working on the client, not for using it.
      (process.env as Record<string, string | undefined>).NODE_ENV ??= "production";
      const { chat } = await import("../terminal/chat-command");
      return chat({ server, session: args[0], latest: values.continue });
    }
    case "sessions":
    case "pending":
    case "inspect":
      return withLocal(databaseUrl, async ({ db, questions, sessions: sessionService }) => {
        if (command === "sessions") {
          const sessions = await sessionService.listSessions();
          print(sessions, formatSessions(sessions));
        } else if (command === "pending") {
          const pending = await questions.listPending(values.session ? { sessionId: values.session } : {});
          print(pending, formatPending(pending));
        } else {
          const [runId] = need(args, 1, "inspect RUN_ID");
          const detail = await loadRunDetail(db, questions, runId!);
          const messages = (await db.message.findMany({ where: { runId }, orderBy: { createdAt: "asc" } })).map(toMessage);
          const data = { run: detail, journal: detail.journal, pendingQuestions: detail.pendingQuestions, questions: detail.questions, messages };
          print(data, formatInspect(data));
        }
        return 0;
      });
    case "backup":
      return backupCommand(databaseUrl, args[0], print);
    case "restore":
      return restoreCommand(databaseUrl, args[0], print);
    case "token":
      if (args[0] === "rotate") {
        if (args.length > 1) throw new UsageError("Usage: parley token rotate");
        const server = await findServer({ databaseUrl, explicit, token });
        const { result, text } = await rotateTokenCommand({ databaseUrl, server });
        print(result, text);
        return 0;
      }
      return withLocal(databaseUrl, ({ db }) => tokenCommand(db, args, values, print, (message) => new UsageError(message)));
    case "sign-out-everywhere": {
      if (args.length > 0) throw new UsageError("Usage: parley sign-out-everywhere");
      const server = await findServer({ databaseUrl, explicit, token });
      const { result, text } = await signOutEverywhereCommand({ server, explicit: Boolean(explicit), inDatabase: (work) => withLocal(databaseUrl, ({ db }) => work(db)) });
      print(result, text);
      return 0;
    }
    case "send-input":
    case "decline":
    case "resume":
    case "stop": {
      const send = prepare(command, args, values);
      const server = await findServer({ databaseUrl, explicit, token });
      let receipt: Receipt | undefined;
      if (server) {
        try {
          receipt = await send(throughServer(createServerClient(server)));
        } catch (err) {
          // The server went away: the same commandId through the inbox is applied at most once.
          if (!(err instanceof ServerUnreachable) || explicit) throw err;
        }
      }
      receipt ??= await withLocal(databaseUrl, ({ db, commands, questions }) =>
        send(createInboxClient({ db, commands, questions, waitMs: Number(values.wait) })),
      );
      print(receipt, formatReceipt(receipt));
      return receipt.apply_state === "rejected" ? 1 : 0;
    }
    default:
      throw new UsageError(`Unknown command "${command}".`);
  }
}

/** Checks a command's arguments before anything is sent, and returns how to send it. */
function prepare(command: Target, args: string[], values: { "value-json"?: string; message?: string; digest?: string; "command-id"?: string }) {
  const commandId = values["command-id"] ?? randomUUID();
  const digest = values.digest ?? null;
  if (command === "resume" || command === "stop") {
    const [runId] = need(args, 1, `${command} RUN_ID`);
    return (via: Commander) => (command === "resume" ? via.resume(runId!, commandId) : via.stop(runId!, commandId));
  }
  const [runId, pendingId] = need(args, 2, `${command} RUN_ID PENDING_ID`);
  // Checked here with the schemas REST and the inbox use (limits, depth, size), before anything is sent or recorded.
  if (command === "decline") {
    const { message } = parseOrThrow(RejectBodySchema, { message: values.message ?? null, digest, commandId });
    return async (via: Commander) => via.decline(await via.findQuestion({ runId: runId!, pendingId: pendingId! }), { message, digest, commandId });
  }
  const raw = values["value-json"];
  if (raw === undefined) throw new UsageError("send-input needs --value-json, e.g. --value-json '\"staging\"'");
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new AppError("reply_not_json", `--value-json is not valid JSON: ${clip(raw, 200)}`);
  }
  parseOrThrow(ReplyBodySchema, { value, digest, commandId });
  return async (via: Commander) => via.sendInput(await via.findQuestion({ runId: runId!, pendingId: pendingId! }), { value, digest, commandId });
}

async function withLocal<T>(databaseUrl: string, work: (local: Local) => Promise<T>): Promise<T> {
  const local = await openLocal(databaseUrl);
  try {
    return await work(local);
  } finally {
    await local.db.$disconnect();
  }
}

function need(args: string[], count: number, usage: string): string[] {
  if (args.length < count) throw new UsageError(`Usage: parley ${usage}`);
  return args;
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
