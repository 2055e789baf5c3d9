import { MAX_SAY_CHARS } from "../../lib/protocol/ipc";
import { digestOf, type Journal } from "./journal";
import type { RunContext } from "./run-context";
import type { ReplyStream, Runtime } from "./types";

/** What a run shows in the chat: its messages (said at once, or streamed as a reply), journaled once, and its progress line. */
export type ChatMessages = Pick<Runtime, "say" | "reply" | "progress">;

export function createChatMessages(ctx: RunContext, journal: Journal): ChatMessages {
  const { host } = ctx;

  /** A streamed reply at its claimed position (not on replay). */
  function liveReply(seq: number, digest: string): ReplyStream {
    let text = "";
    let ended = false;
    return {
      append(delta: string) {
        if (ended || ctx.isParked() || typeof delta !== "string" || delta.length === 0) return;
        const piece = delta.slice(0, MAX_SAY_CHARS - text.length);
        if (piece.length === 0) return;
        text += piece;
        host.send({ type: "run.say.delta", runId: host.runId, seq, delta: piece });
      },
      end(options: { stopped?: boolean } = {}) {
        if (ended) return text;
        ended = true;
        if (text.length > 0 && !ctx.isParked()) {
          host.send({ type: "run.say", runId: host.runId, seq, digest, text, ...(options.stopped ? { stopped: true } : {}) });
        }
        return text;
      },
      get text() {
        return text;
      },
    };
  }

  return {
    say(text) {
      const digest = digestOf("say", text);
      const { seq, record } = journal.claim("say", digest, "a chat message");
      if (!record) ctx.send({ type: "run.say", runId: host.runId, seq, digest, text });
    },
    reply() {
      const digest = digestOf("reply");
      const { seq, record } = journal.claim("say", digest, "a streamed reply");
      if (record) {
        // Replay: the reply was stored before; nothing is sent again.
        const recorded = record.text ?? "";
        return {
          append() {},
          end: () => recorded,
          get text() {
            return recorded;
          },
        };
      }
      return liveReply(seq, digest);
    },
    progress(text) {
      ctx.send({ type: "run.progress", runId: host.runId, text });
    },
  };
}
