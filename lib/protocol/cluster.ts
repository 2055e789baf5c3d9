import { z } from "zod";
import { IdSchema } from "./commands";
import { StreamingReplySchema } from "./entities";
import { QuestionSchema } from "./question";

/** A node's id: fixed for the life of one server process. */
export const NodeIdSchema = z.string().min(1).max(100);

/**
 * What one node tells another over the cluster bus (Socket.IO's server-side emit through its
 * Redis adapter). `to` names the one node it is for; the others drop it.
 */
export const ClusterMessageSchema = z.discriminatedUnion("type", [
  /**
   * A question of a run was settled on another node. To the node that holds the run's lease: hand
   * it to the run, or wake the run. To all (`to` null, sent at once, before the sender knows who
   * holds the run): only a node where the run is live hands it over. `question` as settled, when sent.
   */
  z.object({ type: z.literal("run.deliver"), to: NodeIdSchema.nullable(), runId: IdSchema, questionId: IdSchema, question: QuestionSchema.optional() }),
  /** A child run that this node's run waits on has ended elsewhere. */
  z.object({ type: z.literal("run.child_ended"), to: NodeIdSchema, runId: IdSchema, childRunId: IdSchema }),
  /** Stop a run this node holds (the caller waits for its end in the database). */
  z.object({ type: z.literal("run.stop"), to: NodeIdSchema, runId: IdSchema, reason: z.string().max(2_000) }),
  /** A question with a timeout was asked on another node: the node that owns the expiry timers schedules it. */
  z.object({ type: z.literal("question.expiring"), to: NodeIdSchema.nullable(), id: IdSchema, expiresAt: z.iso.datetime() }),
  /** Every browser was signed out (a new revocation epoch in the database): read it again, and drop the sockets of older cookies. */
  z.object({ type: z.literal("cookies.revoked"), to: z.null() }),
  /** An API token was revoked: drop the sockets signed in with it. */
  z.object({ type: z.literal("api-token.revoked"), to: z.null(), id: IdSchema }),
  /** People were added or removed: read them again; after a removal, drop the sockets of cookies that no longer pass. */
  z.object({ type: z.literal("people.changed"), to: z.null(), removed: z.boolean() }),
]);
export type ClusterMessage = z.infer<typeof ClusterMessageSchema>;

/** What one node asks all the others, each answering for itself (serverSideEmit with an ack). */
export const ClusterQuerySchema = z.discriminatedUnion("type", [
  /** The agent replies a node is streaming in a session (a tab joins it on another node). */
  z.object({ type: z.literal("session.streams"), sessionId: IdSchema }),
]);
export type ClusterQuery = z.infer<typeof ClusterQuerySchema>;

/** Each query's answer from one node. */
export const ClusterAnswerSchemas = {
  "session.streams": z.array(StreamingReplySchema),
} satisfies Record<ClusterQuery["type"], z.ZodType>;
export type ClusterAnswer<T extends ClusterQuery["type"]> = z.infer<(typeof ClusterAnswerSchemas)[T]>;

/**
 * Whether this node hears the others: `single` without Redis (one node), `connected`, or `lost`
 * (Redis unreachable: the node serves its own tabs, but not what happens on other nodes).
 */
export const CrossNodeStatusSchema = z.enum(["single", "connected", "lost"]);
export type CrossNodeStatus = z.infer<typeof CrossNodeStatusSchema>;
