import { watch, type FSWatcher } from "node:fs";
import path from "node:path";
import { log } from "../log";

/**
 * Development: a saved file under the workers' folders reloads the workers only (the server,
 * Next.js, the token and the open tabs stay). Saves come in bursts (an editor writes twice, a
 * formatter runs): one reload after they settle.
 */
export function reloadWorkersOnChange(dirs: readonly string[], reload: (changed: string[]) => void, { settleMs = 150 } = {}): { close(): void } {
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  const watchers: FSWatcher[] = [];
  for (const dir of dirs) {
    try {
      const watcher = watch(dir, { recursive: true }, (_event, file) => {
        if (!file || !/\.(ts|mts|js|mjs|json)$/.test(file) || /\.(test|spec)\.\w+$/.test(file)) return;
        changed.add(path.join(dir, file.toString()));
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          timer = null;
          const files = [...changed];
          changed.clear();
          reload(files);
        }, settleMs);
      });
      watcher.on("error", (err) => log.error({ err }, `[dev] stopped watching ${dir}`));
      watchers.push(watcher);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  return {
    close() {
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
