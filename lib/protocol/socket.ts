import { z } from "zod";
import { IdSchema } from "./commands";
import { WireErrorSchema, type WireError } from "./errors";
import type { Message, MessageDelta, Run, Session, SessionSnapshot } from "./entities";
import type { QuestionRejectCommand, QuestionReplyCommand, ReplyReceipt } from "./commands";
import type { Question } from "./question";
import type { DevicePresence } from "./push";
import type { PersonRenamed } from "./display-names";
import { CrossNodeStatusSchema } from "./cluster";

export const SessionJoinCommandSchema = z.strictObject({ sessionId: IdSchema });
export type SessionJoinCommand = z.infer<typeof SessionJoinCommandSchema>;

/** How this node is doing, sent on connect and whenever it changes: `crossNode` says whether it hears the other nodes. */
export const ServerStatusSchema = z.object({ crossNode: CrossNodeStatusSchema });
export type ServerStatus = z.infer<typeof ServerStatusSchema>;

/** Every socket acknowledgement: a result or a typed error, never silence. */
export type Ack<T> = { ok: true; data: T } | { ok: false; error: WireError };
export const AckErrorSchema = z.object({ ok: z.literal(false), error: WireErrorSchema });

/** Server → client. Facts, named in the past tense. */
export interface ServerToClientEvents {
  "question.asked": (question: Question) => void;
  /** The question was answered: retract its card and show the answer. */
  "question.replied": (question: Question) => void;
  /** The question ended without an answer — declined, timed out, cancelled or expired (its `status` says which): retract its card. */
  "question.rejected": (question: Question) => void;
  /** A pending question changed without closing: a vote counted, or an escalation added answerers. Replace its card's question. */
  "question.updated": (question: Question) => void;
  "message.created": (message: Message) => void;
  /** More text of an agent reply still streaming (the snapshot's `streaming` holds what came before); its `message.created` replaces it. */
  "message.delta": (delta: MessageDelta) => void;
  "run.updated": (run: Run) => void;
  "session.updated": (session: Session) => void;
  /** The session was deleted (its runs were stopped and its questions retracted before this): drop it from lists, leave it if shown. */
  "session.deleted": (payload: { id: string }) => void;
  /** The session is no longer shared with this person (removed, or they left): drop it from lists; this socket has left its room. */
  "session.left": (payload: { id: string }) => void;
  /** The session's permission rules changed: a tab showing them fetches them again. */
  "rules.updated": (payload: { sessionId: string }) => void;
  /** A person was renamed (./display-names): every tab names them so from now on. */
  "person.renamed": (payload: PersonRenamed) => void;
  /** This node's status (on connect, and when it changes): `lost` while it cannot hear the other nodes (Redis down). */
  "server.status": (status: ServerStatus) => void;
}

/** Client → server. Commands, named in the present tense; each answers through its ack. The server parses every payload again. */
export interface ClientToServerEvents {
  "session.join": (payload: SessionJoinCommand, ack: (res: Ack<SessionSnapshot>) => void) => void;
  "session.leave": (payload: SessionJoinCommand, ack?: (res: Ack<null>) => void) => void;
  "question.reply": (payload: QuestionReplyCommand, ack: (res: Ack<ReplyReceipt>) => void) => void;
  "question.reject": (payload: QuestionRejectCommand, ack: (res: Ack<ReplyReceipt>) => void) => void;
  /** Which session this tab shows while visible and focused, and its browser's push subscription (./push): no push goes to that device for that session. */
  "device.presence": (payload: DevicePresence, ack?: (res: Ack<null>) => void) => void;
}

/** The handshake's `auth`: a script or terminal client sends a token (the server token or an API token); a browser tab has its cookie. */
export const SocketAuthSchema = z.object({
  token: z.string().max(200).optional(),
  /** A terminal client names itself, so an answer it gives is recorded as given "in a terminal". */
  surface: z.enum(["terminal"]).optional(),
});

export const SOCKET_PATH = "/socket.io";
export const sessionRoom = (sessionId: string) => `session:${sessionId}`;
/** Every socket of a person: the session list's updates go here (of the sessions they own and those shared with them). */
export const ownerRoom = (ownerId: string) => `owner:${ownerId}`;
