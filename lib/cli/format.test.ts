import { expect, it } from "vitest";
import type { AuditEntry } from "../protocol/audit";
import type { WebhookDelivery } from "../protocol/webhooks";
import { deliveryLine, formatAudit } from "./format";

const delivery = (over: Partial<WebhookDelivery>): WebhookDelivery => ({
  id: "msg_1",
  questionId: "q1",
  host: "127.0.0.1:8080",
  status: "pending",
  attempts: 1,
  lastError: "HTTP 500",
  nextAttemptAt: "2026-12-05T10:00:05.000Z",
  deliveredAt: null,
  createdAt: "2026-12-05T10:00:00.000Z",
  ...over,
});

it("parley inspect says where each webhook delivery stands", () => {
  expect(deliveryLine(delivery({}))).toBe("pending, 1 attempt(s) so far, next at 2026-12-05T10:00:05.000Z; last error: HTTP 500");
  expect(deliveryLine(delivery({ status: "delivered", attempts: 2, lastError: null, nextAttemptAt: null, deliveredAt: "2026-12-05T10:00:06.000Z" }))).toBe(
    "delivered after 2 attempt(s) (2026-12-05T10:00:06.000Z)",
  );
  expect(deliveryLine(delivery({ status: "failed", attempts: 9, nextAttemptAt: null }))).toBe("failed after 9 attempt(s), given up; last error: HTTP 500");
});

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  id: "q1",
  sessionId: "s1",
  sessionTitle: "Deploys",
  runId: "r1",
  kind: "question",
  askedBy: "deploy",
  asked: "deploy asked: Ship it?",
  status: "answered",
  answer: "yes",
  feedback: null,
  closedBy: "socket",
  via: "in a browser tab",
  person: "alice",
  personName: "alice",
  ruleId: null,
  rule: null,
  editedInput: null,
  originalInput: null,
  votes: [],
  outcome: "Allowed once by alice, in a browser tab",
  createdAt: "2026-12-05T10:00:00.000Z",
  closedAt: "2026-12-05T10:02:11.123Z",
  cursor: "c1.x",
  ...over,
});

it("parley audit: a line per settled question, its votes and an edited input indented, and how to read on", () => {
  const page = {
    entries: [
      entry({}),
      entry({ asked: "deploy asked to use shell: npm test", outcome: "Allowed by rule “shell npm test*”", person: null, personName: null, closedAt: "2026-12-05T10:03:00.000Z" }),
      entry({
        asked: "deploy asked to use shell: make deploy",
        outcome: "Allowed once (input edited) by bob, from the CLI",
        editedInput: { command: "make deploy-staging" },
        originalInput: { command: "make deploy" },
        votes: [
          { user: "alice", name: "Ann", decision: "allow", at: "2026-12-05T10:03:30.000Z", surface: "socket", feedback: null },
          { user: "carol", name: "carol", decision: "reject", at: "2026-12-05T10:03:40.000Z", surface: "push", feedback: "not on a Friday" },
        ],
        closedAt: "2026-12-05T10:04:00.000Z",
      }),
    ],
    next: "c1.abc",
  };
  expect(formatAudit(page, { session: "Deploys", timeZone: "UTC" }).split("\n")).toEqual([
    "2026-12-05 10:02:11  deploy asked: Ship it?  →  Allowed once by alice, in a browser tab",
    "2026-12-05 10:03:00  deploy asked to use shell: npm test  →  Allowed by rule “shell npm test*”",
    "2026-12-05 10:04:00  deploy asked to use shell: make deploy  →  Allowed once (input edited) by bob, from the CLI",
    '    input edited: {"command":"make deploy-staging"} (asked with {"command":"make deploy"})',
    "    Ann voted to allow, in a browser tab (2026-12-05 10:03:30)",
    "    carol voted to reject, from a notification (2026-12-05 10:03:40): not on a Friday",
    "More: parley audit --session 'Deploys' --after c1.abc",
  ]);
  // Across sessions a line names its session; the last page says nothing more.
  expect(formatAudit({ entries: [entry({})], next: null }, { timeZone: "UTC" })).toBe("2026-12-05 10:02:11  deploy asked: Ship it?  →  Allowed once by alice, in a browser tab  [Deploys]");
  expect(formatAudit({ entries: [], next: null })).toBe("No settled questions.");
});
