/** `parley`: the operator's command line (see commands.ts); what bin/parley.mjs runs. */
import { AppError } from "../protocol/errors";
import { USAGE, UsageError } from "./arguments";
import { main } from "./commands";
import { isEntryPoint, projectRootOf } from "./entry-point";
import { ASK_EXIT } from "./ask-exit";

export { main };

export async function run(argv: string[]): Promise<void> {
  try {
    process.exitCode = await main(argv);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
      // For `ask`, 2 means declined: a script must not read a mistyped flag as the person's no.
      process.exitCode = argv[0] === "ask" ? ASK_EXIT.error : 2;
    } else if (err instanceof AppError) {
      process.stderr.write(`error (${err.code}): ${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`error: ${(err as Error).message ?? err}\n`);
      process.exitCode = 1;
    }
  }
}

// `node dist/cli.js …` runs the CLI as `npx parley` does: from the project folder (bin/parley.mjs imports this module and calls `run` itself).
if (isEntryPoint(import.meta.url)) {
  process.chdir(projectRootOf(import.meta.url));
  await run(process.argv.slice(2));
}
