import { randomUUID } from "node:crypto";
import { StartRunBodySchema, type StartRunBody } from "../protocol/commands";
import { isFinalRunStatus, type Run } from "../protocol/entities";
import { AppError, parseOrThrow } from "../protocol/errors";
import { clip } from "../protocol/bounded-text";
import { formatPending } from "./format";
import { createServerClient, type FoundServer } from "./server-client";

const POLL_MS = 300;

/** The start-run body from the command line, checked with the schema REST uses before anything is sent. */
export function startRunBody(functionName: string, input: string | undefined, commandId: string = randomUUID()): StartRunBody {
  let value: unknown;
  if (input !== undefined) {
    try {
      value = JSON.parse(input);
    } catch {
      throw new AppError("input_not_json", `--input is not valid JSON: ${clip(input, 200)}`);
    }
  }
  return parseOrThrow(StartRunBodySchema, { function: functionName, ...(input === undefined ? {} : { input: value }), commandId });
}

const ended = (run: Run) => `run ${run.id} ${run.status}${run.error ? `: ${run.error}` : ""}${run.result !== null && run.result !== undefined ? `\nresult: ${JSON.stringify(run.result)}` : ""}`;

/**
 * `parley run FUNCTION`: starts the run through the server's REST API, named as the CLI's (the
 * transcript says so), and with `wait` follows it until it ends or waits for an answer.
 */
export async function runCommand({
  server,
  body,
  sessionId,
  wait,
  print,
}: {
  server: FoundServer;
  body: StartRunBody;
  sessionId: string | undefined;
  wait: boolean;
  print: (data: unknown, text: string) => void;
}): Promise<number> {
  const client = createServerClient(server);
  const session = sessionId ?? (await client.createSession(`parley run ${body.function}`)).id;
  let run = await client.startRun(session, body);
  const link = new URL(`/s/${session}`, server.url).href;
  if (!wait) {
    print(run, `${run.id}\nStarted ${run.functionName} in ${link}. Follow it with: npx parley inspect ${run.id}`);
    return 0;
  }
  for (;;) {
    if (isFinalRunStatus(run.status)) {
      print(run, ended(run));
      return run.status === "succeeded" ? 0 : 1;
    }
    if (run.status === "waiting_input") {
      const rootRunId = run.rootRunId;
      const asked = (await client.pendingIn(session)).filter((q) => q.rootRunId === rootRunId);
      // Answered in the meantime (another tab): keep following.
      if (asked.length) {
        print({ run, pendingQuestions: asked }, `run ${run.id} waits for an answer (in ${link}, or here):\n${formatPending(asked)}`);
        return 0;
      }
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
    run = await client.getRun(run.id);
  }
}
