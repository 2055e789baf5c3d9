/** A run and every run below it (its children, their children, ...), from the runs of its tree. */
export function treeBelow(runId: string, runs: ReadonlyArray<{ id: string; parentRunId: string | null }>): Set<string> {
  const below = new Set([runId]);
  for (let grew = true; grew;) {
    grew = false;
    for (const r of runs) {
      if (r.parentRunId && below.has(r.parentRunId) && !below.has(r.id)) {
        below.add(r.id);
        grew = true;
      }
    }
  }
  return below;
}
