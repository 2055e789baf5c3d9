/**
 * Many socket tabs in a child of a benchmark (bench-kit-swarm-parent.ts drives it over IPC), so that
 * reading thousands of broadcasts does not bottleneck one measuring process; lean ones
 * (bench-kit-lean-tab.ts), which parse only the events they watch. It opens groups of tabs
 * (Parley tabs joined to a session, or bare clients of a relay) and, for each thing a group's tabs
 * see (a key: "asked:<runId>", "replied:<questionId>", …), tells the parent once every tab of the
 * group has seen it, with the moments the first and the last one did on the monotonic clock
 * (process.hrtime.bigint(), shared by processes on one machine) and the first tab's payload.
 */
import { firstId, openLeanTab, payloadOf, type LeanTab } from "./bench-kit-lean-tab";
import type { SwarmCommand, SwarmReport } from "./bench-kit-swarm-parent";

if (!process.send) throw new Error("bench-kit-swarm.ts runs as a forked child");
const send = (report: SwarmReport) => process.send!(report);

/**
 * The keys each group watches: event → the key of a packet (undefined: not watched), and the payload
 * when the parent needs it. Only the card is parsed; the rest is read from the packet's text (a
 * question's and a run's first field is their id), so that parsing 10,000 big payloads (the app's)
 * against small ones (the relay's) does not weigh on one side.
 */
const KEYS: Record<"app" | "relay", Record<string, (packet: string) => { key: string; payload?: unknown } | undefined>> = {
  app: {
    "question.asked": (packet) => {
      const q = payloadOf(packet) as { runId: string };
      return { key: `asked:${q.runId}`, payload: q };
    },
    "question.replied": (packet) => ({ key: `replied:${firstId(packet)}` }),
    "run.updated": (packet) => (packet.includes('"status":"succeeded"') ? { key: `succeeded:${firstId(packet)}` } : undefined),
  },
  relay: { retracted: (packet) => ({ key: `retracted:${firstId(packet)}` }) },
};

const groups = new Map<string, { sockets: LeanTab[]; seen: Map<string, { count: number; first: bigint; last: bigint; payload: unknown }> }>();

function watch(group: string, kind: "app" | "relay", socket: LeanTab) {
  const g = groups.get(group)!;
  for (const [event, keyOf] of Object.entries(KEYS[kind])) {
    socket.on(event, (packet) => {
      const now = process.hrtime.bigint();
      const seen = keyOf(packet);
      if (seen === undefined) return;
      let s = g.seen.get(seen.key);
      if (!s) g.seen.set(seen.key, (s = { count: 0, first: now, last: now, payload: seen.payload }));
      s.count++;
      if (now > s.last) s.last = now;
      if (s.count === g.sockets.length) {
        g.seen.delete(seen.key);
        send({ type: "seen", group, key: seen.key, first: String(s.first), last: String(s.last), payload: s.payload });
      }
    });
  }
}

/** When the last Socket.IO packet reached any tab here (performance.now()). */
let lastFrameAt = 0;
let closing = false;

async function connect(url: string, token: string | undefined): Promise<LeanTab> {
  const socket = await openLeanTab(url, token ? { token } : {});
  socket.onFrame(() => (lastFrameAt = performance.now()));
  socket.onClose((reason) => {
    if (!closing) send({ type: "lost", reason });
  });
  return socket;
}

async function open({ group, kind, url, count, token, sessionId }: Extract<SwarmCommand, { type: "open" }>) {
  if (!groups.has(group)) groups.set(group, { sockets: [], seen: new Map() });
  const g = groups.get(group)!;
  for (let i = 0; i < count; i += 50) {
    const some = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, async () => {
        const socket = await connect(url, token);
        if (sessionId) {
          const joined = (await socket.emitWithAck("session.join", { sessionId })) as { ok: boolean };
          if (!joined.ok) throw new Error(`session.join failed: ${JSON.stringify(joined)}`);
        }
        return socket;
      }),
    );
    g.sockets.push(...some);
    for (const socket of some) watch(group, kind, socket);
  }
}

process.on("message", (command: SwarmCommand) => {
  if (command.type === "open") {
    open(command).then(
      () => send({ type: "opened", group: command.group }),
      (err: Error) => send({ type: "failed", message: err.message }),
    );
  } else if (command.type === "quiet") {
    const check = () => (performance.now() - lastFrameAt >= command.ms ? send({ type: "quiet" }) : setTimeout(check, 10));
    check();
  } else if (command.type === "close") {
    closing = true;
    for (const g of groups.values()) for (const s of g.sockets) s.close();
    process.exit(0);
  }
});
process.on("disconnect", () => process.exit(0));
send({ type: "ready" });
