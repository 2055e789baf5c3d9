import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { ASK_USAGE, AUDIT_USAGE, BACKUP_USAGE, ROTATE_USAGE, RUN_USAGE, SIGN_OUT_USAGE, TOKEN_USAGE, USER_USAGE, WEBHOOK_SECRET_USAGE } from "./usage";

export const USAGE = `Usage: parley <command> [options]

Commands:
  chat [SESSION] [--continue]       chat in this terminal: a new chat, SESSION (an id, a prefix of
                                    one, or a title), or with --continue the most recent one
${RUN_USAGE}
${ASK_USAGE}
  sessions                          list chat sessions with their pending questions
  pending [--session ID]            list pending questions
  inspect RUN_ID                    a run: state, journal, pending questions and how to answer them
${AUDIT_USAGE}
  send-input RUN_ID PENDING_ID --value-json JSON [--input-json JSON] [--digest D] [--command-id C]
                                    answer a pending question (--input-json: allow an
                                    approval once with the tool's input edited)
  decline RUN_ID PENDING_ID [--message TEXT] [--digest D] [--command-id C]
                                    decline a pending question
  resume RUN_ID [--command-id C]    load an active run into a worker again
  stop RUN_ID [--command-id C]      stop a run and its child runs
${USER_USAGE}
${TOKEN_USAGE}
${ROTATE_USAGE}
${BACKUP_USAGE}
${SIGN_OUT_USAGE}
${WEBHOOK_SECRET_USAGE}

send-input, decline, resume and stop go through the running server (found beside the database,
or --server); with none running they are recorded in the database and applied when it starts.
user, token revoke and sign-out-everywhere go through the running server too; with none running
they write the database.

Options:
  --json          print JSON instead of text
  --server URL    the server to talk to (also --url; default: PARLEY_URL, else the one running for the database)
  --token T       the server token or an API token for --server (default: PARLEY_TOKEN, else the local server's)
  --wait MS       with no server running: how long to wait for a server to apply the command (default 3000)
  --database URL  the database: a SQLite file: URL or a postgresql:// URL (default: DATABASE_URL, else file:./data/parley.db)
`;

export class UsageError extends Error {}

const OPTIONS = {
  json: { type: "boolean", default: false },
  session: { type: "string" },
  "value-json": { type: "string" },
  "input-json": { type: "string" },
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
  user: { type: "string" },
  admin: { type: "boolean", default: false },
  slack: { type: "string" },
  email: { type: "string" },
  "email-questions": { type: "string" },
  scope: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const satisfies ParseArgsOptionsConfig;

/** `parley run`: --wait is a flag (follow the run), and the run takes --input. */
const RUN_OPTIONS = { ...OPTIONS, wait: { type: "boolean", default: false }, input: { type: "string" } } as const satisfies ParseArgsOptionsConfig;

/** `parley audit`: where a page starts and how long it is. */
const AUDIT_OPTIONS = { ...OPTIONS, after: { type: "string" }, limit: { type: "string" } } as const satisfies ParseArgsOptionsConfig;

/** `parley ask`: what the question offers, how long it waits, where it goes and who asks. */
const ASK_OPTIONS = {
  ...OPTIONS,
  options: { type: "string" },
  multi: { type: "boolean", default: false },
  default: { type: "string" },
  timeout: { type: "string" },
  new: { type: "string" },
  from: { type: "string" },
  answerers: { type: "string" },
  "escalate-after": { type: "string" },
  "escalate-to": { type: "string" },
} as const satisfies ParseArgsOptionsConfig;
export type AskValues = ReturnType<typeof parseArgs<{ options: typeof ASK_OPTIONS; allowPositionals: true }>>["values"];

export interface CommandLine {
  command: string | undefined;
  args: string[];
  values: Omit<ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"], "wait"> & { wait: string | boolean; input?: string } & Partial<
      Omit<AskValues, keyof typeof OPTIONS>
    > & { after?: string; limit?: string };
}

/** The command and its options; what an option means can depend on the command (see RUN_OPTIONS). */
export function parseCommandLine(argv: string[]): CommandLine {
  const [command] = parseArgs({ args: argv, allowPositionals: true, strict: false, options: OPTIONS }).positionals;
  if (command === "run") {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: RUN_OPTIONS });
    return { command, args: positionals.slice(1), values };
  }
  if (command === "audit") {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: AUDIT_OPTIONS });
    return { command, args: positionals.slice(1), values };
  }
  if (command === "ask") {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: ASK_OPTIONS });
    return { command, args: positionals.slice(1), values };
  }
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  return { command, args: positionals.slice(1), values };
}
