import type { WorkerCatalogue } from "./agent-worker-process";

/** What start-up (and each reload) says of the workers' functions: how many, and each file that failed to load and why. */
export function describeFunctions(catalogue: WorkerCatalogue): string[] {
  const { functions, failures } = catalogue;
  const commands = functions.flatMap((f) => (f.command ? [`/${f.command}`] : [])).sort();
  const lines = [`> Agent functions: ${functions.length} loaded${commands.length ? ` (chat commands ${commands.join(" ")})` : ""}`];
  for (const f of failures) lines.push(`> ${f.file} did not load: ${f.message}`);
  return lines;
}
