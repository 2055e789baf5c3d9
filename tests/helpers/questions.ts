import type { Question } from "../../lib/protocol/question";
import type { QuestionTeamFields } from "../../lib/protocol/teams";

/** A question that names nobody: any member answers, one vote settles. */
export const NO_TEAM: QuestionTeamFields = { answerers: null, approvals: null, votes: [], escalate: [], escalated: 0, closedByUser: null, closedByRule: null, editedInput: null };

/** A pending question as a client receives it, for tests: a plain question unless `over` says otherwise. */
export const aQuestion = (over: Partial<Question> = {}): Question => ({
  id: "q1",
  sessionId: "s1",
  runId: "r1",
  rootRunId: "r1",
  owner: "deploy",
  seq: 1,
  pendingId: "p_q1",
  targetDigest: "d",
  replySchema: null,
  kind: "question",
  approval: null,
  prompt: "Which environment?",
  options: ["production", "staging"],
  multi: false,
  allowCustom: false,
  detail: null,
  hasDefault: false,
  default: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  expiresAt: null,
  status: "pending",
  answer: null,
  feedback: null,
  closedBy: null,
  closedAt: null,
  ...NO_TEAM,
  ...over,
});

/** A pending approval of `write_file` on docs/a.md, for tests; `approval` overrides parts of its spec. */
export const anApproval = (approval: Partial<NonNullable<Question["approval"]>> = {}, over: Partial<Question> = {}): Question =>
  aQuestion({
    kind: "approval",
    owner: "update-docs",
    options: [],
    prompt: "Write docs/a.md?",
    approval: {
      tool: "write_file",
      input: {},
      subject: "docs/a.md",
      subjectKind: "path",
      cwd: null,
      always: [{ pattern: "docs/**", cwd: null, label: "any file under `docs/`" }],
      preview: { type: "text", text: "x" },
      dangerous: false,
      fallback: "deny",
      ...approval,
    },
    ...over,
  });

/** A flat form with one field of each kind (text, integer, choice with titles, boolean), for tests. */
export const tripForm = {
  type: "object",
  properties: {
    destination: { type: "string", title: "Destination", minLength: 2 },
    nights: { type: "integer", title: "Nights", minimum: 1, maximum: 14 },
    currency: { type: "string", title: "Currency", enum: ["EUR", "USD", "GBP"], enumNames: ["Euro", "US dollar", "Pound"] },
    insurance: { type: "boolean", title: "Travel insurance" },
  },
  required: ["destination", "nights", "currency"],
};
