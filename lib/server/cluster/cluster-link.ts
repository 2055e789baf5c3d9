import { randomUUID } from "node:crypto";
import { ClusterAnswerSchemas, ClusterMessageSchema, ClusterQuerySchema, type ClusterAnswer, type ClusterMessage, type ClusterQuery, type CrossNodeStatus } from "../../protocol/cluster";
import { log } from "../log";

/** How messages leave this node (Socket.IO's serverSideEmit through the Redis adapter). */
export interface ClusterTransport {
  send(message: ClusterMessage): void;
  status(): CrossNodeStatus;
  /** Asks every other node; the answers that came in time (a node that did not answer is left out). */
  ask?(query: ClusterQuery): Promise<unknown[]>;
}

type Handler = (message: ClusterMessage) => void;
type Answerer = (query: ClusterQuery) => unknown;

/**
 * This node's end of the cluster bus. The domain publishes and listens here; the transport is
 * attached once Socket.IO is up (nothing is sent before: a single node needs no bus).
 */
export function createClusterLink(nodeId: string = randomUUID()) {
  let transport: ClusterTransport | null = null;
  const handlers = new Set<Handler>();
  let answerer: Answerer | null = null;

  return {
    nodeId,
    attach(t: ClusterTransport | null) {
      transport = t;
    },
    /** Sends to the other nodes; false when there is no bus (one node, or Redis is lost). */
    publish(message: ClusterMessage): boolean {
      if (!transport || transport.status() !== "connected") return false;
      transport.send(message);
      return true;
    },
    /** A message from another node, as the transport received it: checked, and dropped unless it is for this node (or all). */
    receive(raw: unknown): void {
      const parsed = ClusterMessageSchema.safeParse(raw);
      if (!parsed.success) return void log.error({ issue: parsed.error.issues[0] }, "[cluster] dropped a malformed message");
      const { to } = parsed.data;
      if (to !== null && to !== nodeId) return;
      for (const handler of handlers) handler(parsed.data);
    },
    /** Asks the other nodes; each valid answer (none without a bus). */
    async ask<Q extends ClusterQuery>(query: Q): Promise<Array<ClusterAnswer<Q["type"]>>> {
      if (!transport?.ask || transport.status() !== "connected") return [];
      const schema = ClusterAnswerSchemas[query.type];
      const answers: Array<ClusterAnswer<Q["type"]>> = [];
      for (const raw of await transport.ask(query)) {
        const parsed = schema.safeParse(raw);
        if (parsed.success) answers.push(parsed.data as ClusterAnswer<Q["type"]>);
        else log.error({ issue: parsed.error.issues[0] }, `[cluster] dropped a malformed answer to ${query.type}`);
      }
      return answers;
    },
    /** A query from another node, as the transport received it: this node's answer (null to a malformed one). */
    answer(raw: unknown): unknown {
      const parsed = ClusterQuerySchema.safeParse(raw);
      if (!parsed.success) return null;
      return answerer ? answerer(parsed.data) : null;
    },
    /** How this node answers queries (one answerer). */
    answerWith(handler: Answerer): void {
      answerer = handler;
    },
    on(handler: Handler): () => void {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    status(): CrossNodeStatus {
      return transport?.status() ?? "single";
    },
  };
}

export type ClusterLink = ReturnType<typeof createClusterLink>;
