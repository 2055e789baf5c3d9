/**
 * `parley`'s commands. Commands (send-input, decline, resume, stop) go through the running
 * server's REST API when one runs for the database; otherwise they are recorded in the database's
 * durable inbox and applied by the server when it runs. Reads (sessions, pending, inspect, audit)
 * read the database directly (as the administrator: every session), so they work while the server is down. Each command loads only the
 * modules it needs (Prisma, ink, the server's services), so the CLI starts fast.
 */
import { randomUUID } from "node:crypto";
import { clip } from "../protocol/bounded-text";
import { RejectBodySchema, ReplyBodySchema, type Receipt } from "../protocol/commands";
import { AppError, describeZodError, parseOrThrow } from "../protocol/errors";
import type { Question } from "../protocol/question";
import type { Db } from "../server/store/db/client";
import type { DomainServices } from "../server/domain-services";
import { describeDatabase } from "../server/store/db/server-file";
import { parseCommandLine, USAGE, UsageError, type CommandLine } from "./arguments";
import { findServer, ServerUnreachable, type FoundServer, type ServerClient } from "./server-client";

type Target = "send-input" | "decline" | "resume" | "stop";

/** One command, as the server or the inbox carries it out. */
interface Commander {
  findQuestion(args: { runId: string; pendingId: string }): Promise<Question>;
  sendInput(question: Question, args: { value: unknown; input?: Record<string, unknown>; digest: string | null; commandId: string }): Promise<Receipt>;
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

/** The database, checked to be Parley's (a missing SQLite file is not made here). */
async function openDb(databaseUrl: string): Promise<Db> {
  const [{ existsSync }, { engineOf, sqliteFilePath }] = await Promise.all([import("node:fs"), import("../server/store/db/engine")]);
  const file = engineOf(databaseUrl) === "sqlite" ? sqliteFilePath(databaseUrl) : null;
  if (file && !existsSync(file)) throw new AppError("unavailable", `No Parley database at ${file}. Start the server once, or pass --database.`);
  const { createDb } = await import("../server/store/db/client");
  const db = await createDb(databaseUrl);
  if (!file) {
    const { isPgMigrated } = await import("../server/store/health-store");
    if (!(await isPgMigrated(db.exec))) {
      await db.close();
      throw new AppError("unavailable", `No Parley tables in ${describeDatabase(databaseUrl)}. Start the server once (it migrates the database), or pass --database.`);
    }
  }
  return db;
}

/** What every command is given: its words, its options, and where the database and the server are. */
interface Invocation {
  command: string;
  args: string[];
  values: CommandLine["values"];
  print: (data: unknown, text: string) => void;
  databaseUrl: string;
  /** The server named by --server, --url or PARLEY_URL, if any. */
  explicit: string | undefined;
  /** The server running for the database (or the explicit one), if one answers. */
  findServer: () => Promise<FoundServer | null>;
  /** The server, or `unavailable` when none runs. */
  needServer: () => Promise<FoundServer>;
}

type Handler = (run: Invocation) => Promise<number>;

export async function main(argv: string[]): Promise<number> {
  const { command, args, values } = parseCommandLine(argv);
  if (values.help || !command || command === "help") {
    process.stdout.write(USAGE);
    return command || values.help ? 0 : 2;
  }
  const print = (data: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(data, null, 2)}\n` : `${text}\n`);
  const databaseUrl = values.database ?? process.env.DATABASE_URL ?? "file:./data/parley.db";
  const explicit = values.server ?? values.url ?? process.env.PARLEY_URL;
  // An empty PARLEY_TOKEN is no token (the local server's announced one is used then).
  const token = values.token ?? (process.env.PARLEY_TOKEN || null);
  const find = () => findServer({ databaseUrl, explicit, token });
  const needServer = async () => {
    const server = await find();
    if (!server) throw new AppError("unavailable", `No Parley server is running for ${describeDatabase(databaseUrl)}. Start one with \`npm start\`, or pass --url.`);
    return server;
  };
  const handler = Object.hasOwn(HANDLERS, command) ? HANDLERS[command] : undefined;
  if (!handler) throw new UsageError(`Unknown command "${command}".`);
  return handler({ command, args, values, print, databaseUrl, explicit, findServer: find, needServer });
}

async function chatCommand({ args, values, needServer }: Invocation): Promise<number> {
  if (args.length > 1) throw new UsageError("Usage: parley chat [SESSION] [--continue]");
  const server = await needServer();
  // ink draws only a last frame when it believes it runs in CI; a person at a terminal is not CI. It reads this when loaded.
  if (process.stdout.isTTY) for (const name of ["CI", "CONTINUOUS_INTEGRATION"]) delete process.env[name];
  // React's development build (read when loaded too) is for working on the client, not for using it.
  (process.env as Record<string, string | undefined>).NODE_ENV ??= "production";
  const { chat } = await import("../terminal/chat-command");
  return chat({ server, session: args[0], latest: values.continue });
}

async function runFunction({ args, values, print, needServer }: Invocation): Promise<number> {
  const [functionName, ...rest] = args;
  if (!functionName || rest.length > 0) throw new UsageError("Usage: parley run FUNCTION [--session ID] [--input JSON] [--wait]");
  const { runCommand, startRunBody } = await import("./run-command");
  const body = startRunBody(functionName, values.input, values["command-id"]);
  return runCommand({ server: await needServer(), body, sessionId: values.session, wait: values.wait === true, print });
}

async function ask({ args, values, needServer }: Invocation): Promise<number> {
  const [question, ...rest] = args;
  if (!question || rest.length > 0) throw new UsageError('Usage: parley ask "QUESTION" [--options A,B] [--multi] [--default A] [--timeout 10m] [--session ID | --new TITLE] [--from NAME]');
  if (values.session !== undefined && values.new !== undefined) throw new UsageError("Give --session or --new, not both.");
  const { askBody, askCommand } = await import("./ask-command");
  const body = askBody(question, {
    options: values.options,
    multi: values.multi,
    default: values.default,
    timeout: values.timeout,
    session: values.session,
    from: values.from,
    answerers: values.answerers,
    escalateAfter: values["escalate-after"],
    escalateTo: values["escalate-to"],
  });
  return askCommand({ server: await needServer(), body, newTitle: values.new, json: values.json });
}

/** `sessions`, `pending` and `inspect`: read from the database, as the administrator. */
function readLocal({ command, args, values, print, databaseUrl }: Invocation): Promise<number> {
  return withLocal(databaseUrl, async ({ db, questions, sessions: sessionService }) => {
    const { formatInspect, formatPending, formatSessions } = await import("./format");
    if (command === "sessions") {
      const sessions = await sessionService.listSessions();
      print(sessions, formatSessions(sessions));
    } else if (command === "pending") {
      const pending = await questions.listPending(values.session ? { sessionId: values.session } : {});
      print(pending, formatPending(pending));
    } else {
      const [runId] = need(args, 1, "inspect RUN_ID");
      const [{ loadRunDetail }, { toMessage }, { createMessageStore }] = await Promise.all([
        import("../server/runs/run-detail"),
        import("../server/store/db/mappers"),
        import("../server/store/sessions/message-store"),
      ]);
      const detail = await loadRunDetail(db, questions, runId!);
      const messages = (await createMessageStore(db.exec).ofRun(runId!)).map(toMessage);
      const data = { run: detail, journal: detail.journal, pendingQuestions: detail.pendingQuestions, questions: detail.questions, deliveries: detail.deliveries, messages };
      print(data, formatInspect(data));
    }
    return 0;
  });
}

async function audit({ args, values, print, databaseUrl }: Invocation): Promise<number> {
  if (args.length > 0) throw new UsageError("Usage: parley audit [--session ID_OR_TITLE] [--after CURSOR] [--limit N] [--json]");
  const { AuditQuerySchema } = await import("../protocol/audit");
  const given = Object.entries({ session: values.session, after: values.after, limit: values.limit }).filter(([, v]) => v !== undefined);
  const query = AuditQuerySchema.safeParse(Object.fromEntries(given));
  if (!query.success) throw new UsageError(`Invalid audit options: ${describeZodError(query.error)}`);
  return withDb(databaseUrl, async (db) => {
    const [{ createAuditService }, { formatAudit }] = await Promise.all([import("../server/audit/audit-service"), import("./format")]);
    const page = await createAuditService(db).read(null, query.data);
    print(page, formatAudit(page, { session: values.session, limit: values.limit }));
    return 0;
  });
}

async function tokenCommand({ args, values, print, databaseUrl, explicit, findServer }: Invocation): Promise<number> {
  if (args[0] === "rotate") {
    if (args.length > 1) throw new UsageError("Usage: parley token rotate");
    const server = await findServer();
    const { result, text } = await (await import("./rotate-token-command")).rotateTokenCommand({ databaseUrl, server });
    print(result, text);
    return 0;
  }
  if (args[0] === "revoke") {
    const [, id, ...extra] = args;
    if (!id || extra.length > 0) throw new UsageError("Usage: parley token revoke TOKEN_ID");
    const server = await findServer();
    const { revokeTokenCommand } = await import("./revoke-token-command");
    const { result, text } = await revokeTokenCommand({ id, server, explicit: Boolean(explicit), inDatabase: (work) => withDb(databaseUrl, work) });
    print(result, text);
    return 0;
  }
  return withDb(databaseUrl, async (db) => (await import("./token-commands")).tokenCommand(db, args, values, print, (message) => new UsageError(message)));
}

async function user({ args, values, print, databaseUrl, explicit, findServer }: Invocation): Promise<number> {
  const [{ userCommand }, { signInOrigin }] = await Promise.all([import("./user-commands"), import("../server/people/sign-in-origin")]);
  const { result, text } = await userCommand(
    args,
    { admin: values.admin, slack: values.slack, email: values.email, emailQuestions: values["email-questions"] },
    {
      findServer,
      explicit: Boolean(explicit),
      inDatabase: (work) => withDb(databaseUrl, work),
      origin: signInOrigin(serverAddress()),
      usage: (message) => new UsageError(message),
    },
  );
  print(result, text);
  return 0;
}

async function signOutEverywhere({ args, print, databaseUrl, explicit, findServer }: Invocation): Promise<number> {
  if (args.length > 0) throw new UsageError("Usage: parley sign-out-everywhere");
  const server = await findServer();
  const { signOutEverywhereCommand } = await import("./sign-out-command");
  const { result, text } = await signOutEverywhereCommand({ server, explicit: Boolean(explicit), inDatabase: (work) => withDb(databaseUrl, work) });
  print(result, text);
  return 0;
}

async function webhookSecret({ args, print, databaseUrl }: Invocation): Promise<number> {
  if (args.length > 0) throw new UsageError("Usage: parley webhook-secret");
  const { webhookSecretCommand } = await import("./webhook-secret-command");
  const { result, text } = await webhookSecretCommand(process.env.PARLEY_WEBHOOK_SECRET?.trim() || undefined, (work) => withDb(databaseUrl, work));
  print(result, text);
  return 0;
}

/** `send-input`, `decline`, `resume` and `stop`: through the server when one runs, else through the durable inbox. */
async function sendCommand({ command, args, values, print, databaseUrl, explicit, findServer }: Invocation): Promise<number> {
  const send = prepare(command as Target, args, values);
  const server = await findServer();
  let receipt: Receipt | undefined;
  if (server) {
    try {
      const { createServerClient } = await import("./server-client");
      receipt = await send(throughServer(createServerClient(server)));
    } catch (err) {
      // The server went away: the same commandId through the inbox is applied at most once.
      if (!(err instanceof ServerUnreachable) || explicit) throw err;
    }
  }
  receipt ??= await withLocal(databaseUrl, async ({ db, commands, questions }) => {
    const { createInboxClient } = await import("./inbox-client");
    return send(createInboxClient({ db, commands, questions, waitMs: Number(values.wait) }));
  });
  const { formatReceipt } = await import("./format");
  print(receipt, formatReceipt(receipt));
  return receipt.apply_state === "rejected" ? 1 : 0;
}

/** Each command's handler: the words `parley` knows. */
const HANDLERS: Record<string, Handler> = {
  chat: chatCommand,
  run: runFunction,
  ask,
  sessions: readLocal,
  pending: readLocal,
  inspect: readLocal,
  audit,
  backup: async ({ args, print, databaseUrl }) => (await import("./backup-commands")).backupCommand(databaseUrl, args[0], print),
  restore: async ({ args, print, databaseUrl }) => (await import("./backup-commands")).restoreCommand(databaseUrl, args[0], print),
  token: tokenCommand,
  user,
  "sign-out-everywhere": signOutEverywhere,
  "webhook-secret": webhookSecret,
  "send-input": sendCommand,
  decline: sendCommand,
  resume: sendCommand,
  stop: sendCommand,
};

/** Checks a command's arguments before anything is sent, and returns how to send it. */
function prepare(command: Target, args: string[], values: { "value-json"?: string; "input-json"?: string; message?: string; digest?: string; "command-id"?: string }) {
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
  const json = (flag: string, text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      throw new AppError("reply_not_json", `--${flag} is not valid JSON: ${clip(text, 200)}`);
    }
  };
  const value = json("value-json", raw);
  const editedRaw = values["input-json"];
  const { input } = parseOrThrow(ReplyBodySchema, { value, digest, commandId, ...(editedRaw !== undefined && { input: json("input-json", editedRaw) }) });
  return async (via: Commander) => via.sendInput(await via.findQuestion({ runId: runId!, pendingId: pendingId! }), { value, ...(input && { input }), digest, commandId });
}

async function withDb<T>(databaseUrl: string, work: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb(databaseUrl);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** The database with the server's own services (the same composition), used read-only or to record commands. */
async function withLocal<T>(databaseUrl: string, work: (local: Local) => Promise<T>): Promise<T> {
  const { createDomainServices } = await import("../server/domain-services");
  return withDb(databaseUrl, (db) => work({ db, ...createDomainServices({ db }) }));
}

/** Where a server started in this environment is reached (its defaults: 127.0.0.1:3000), for links made with no server running. */
function serverAddress(): { allowedOrigins: string[]; host: string; port: number } {
  const allowedOrigins = (process.env.PARLEY_ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter((o) => URL.canParse(o));
  const port = Number(process.env.PORT || 3000);
  return { allowedOrigins, host: process.env.HOST || "127.0.0.1", port: Number.isInteger(port) ? port : 3000 };
}

function need(args: string[], count: number, usage: string): string[] {
  if (args.length < count) throw new UsageError(`Usage: parley ${usage}`);
  return args;
}
