// How `npm test` runs its parts: lanes run at once, the parts of a lane one after another. A part
// also waits for the parts it `needs` (in any lane) and is not run when one of them did not pass,
// and for the parts it comes `after` (in any lane), whatever their outcome: a quiet machine.

/**
 * Runs `parts` (`{ name, needs?: string[], after?: string[] }`) as `lanes` (arrays of part names) say; `run(part)`
 * runs one and resolves with its outcome (`{ result: "passed" | "failed" | "skipped" | … }`).
 * `notRun(part)` may give a reason to pass one over (an interrupt); a part whose need did not pass
 * is "not run" with "<need> failed". Resolves with every outcome, in the order of `parts`.
 */
export async function runLanes(parts, lanes, run, notRun = () => null) {
  const byName = new Map(parts.map((p) => [p.name, p]));
  const laned = lanes.flat();
  const missing = parts.filter((p) => !laned.includes(p.name)).map((p) => p.name);
  const unknown = laned.filter((name) => !byName.has(name));
  if (missing.length || unknown.length || new Set(laned).size !== laned.length) {
    throw new Error(`lanes must name each part once: missing ${missing.join(", ") || "none"}, unknown ${unknown.join(", ") || "none"}`);
  }
  const outcome = new Map();
  const settle = new Map();
  for (const name of laned) outcome.set(name, new Promise((resolve) => settle.set(name, resolve)));
  const passed = (o) => o.result === "passed" || o.result === "skipped";

  await Promise.all(
    lanes.map(async (lane) => {
      for (const name of lane) {
        const part = byName.get(name);
        const needs = await Promise.all((part.needs ?? []).filter((n) => byName.has(n)).map(async (n) => [n, await outcome.get(n)]));
        await Promise.all((part.after ?? []).filter((n) => byName.has(n)).map((n) => outcome.get(n)));
        const failedNeed = needs.find(([, o]) => !passed(o));
        const skip = failedNeed ? `${failedNeed[0]} failed` : notRun(part);
        settle.get(name)(skip ? { name, result: "not run", note: skip } : await run(part));
      }
    }),
  );
  return Promise.all(parts.map((p) => outcome.get(p.name)));
}
