import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { SAMPLE_PROJECT } from "../lib/server/workspace/sample-project";

/** Puts a file of the e2e server's workspace back as the sample project has it: tests that change it start from the same state. */
export function restoreSampleFile(rel: keyof typeof SAMPLE_PROJECT): void {
  const workspace = process.env.PARLEY_E2E_WORKSPACE;
  if (!workspace) throw new Error("PARLEY_E2E_WORKSPACE is not set (playwright.config.ts sets it)");
  const file = path.join(workspace, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, SAMPLE_PROJECT[rel]!);
}
