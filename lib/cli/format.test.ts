import { expect, it } from "vitest";
import type { WebhookDelivery } from "../protocol/webhooks";
import { deliveryLine } from "./format";

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
