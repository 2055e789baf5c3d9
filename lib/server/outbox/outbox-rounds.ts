import { log } from "../log";

/**
 * The sending loop of a durable outbox (webhooks, pushes): a round reads up to `batch` due rows and
 * attempts each. Rounds never overlap: a kick during one starts the next right after it, as does a
 * full batch. Every `pollMs` a round looks for rows that came due (retries, another node's rows).
 */
export function createOutboxRounds<T extends { id: string }>({
  name,
  due,
  attempt,
  batch,
  pollMs,
}: {
  /** The log's prefix: "webhooks", "push". */
  name: string;
  due(limit: number): Promise<T[]>;
  attempt(row: T): Promise<void>;
  batch: number;
  pollMs: number;
}) {
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> | null = null;
  let again = false;

  async function sendDue(): Promise<void> {
    const rows = await due(batch);
    await Promise.all(rows.map((row) => attempt(row).catch((err) => log.error({ deliveryId: row.id, err }, `[${name}] attempt could not be recorded`))));
    if (rows.length === batch) again = true;
  }

  /** A round now, or right after the one running. */
  function kick(): void {
    if (!running) return;
    if (round) {
      again = true;
      return;
    }
    round = sendDue()
      .catch((err) => log.error({ err }, `[${name}] could not read due rows`))
      .finally(() => {
        round = null;
        if (again) {
          again = false;
          kick();
        }
      });
  }

  return {
    kick,
    /** Starts sending: now, at every kick, and every `pollMs`. */
    start(): void {
      running = true;
      timer = setInterval(kick, pollMs);
      timer.unref();
      kick();
    },
    /** No more rounds; resolves when the one running has ended. */
    async stop(): Promise<void> {
      running = false;
      clearInterval(timer);
      await round;
    },
  };
}
