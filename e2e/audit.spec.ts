import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { Api, ChatPage } from "./chat-page";

/** A closed card names who settled it: another person by name, the reader's own answer "by you". */

/** Records another person as the one who settled a question, in the server's database (as the question service stores an answer of theirs). */
function settledBy(questionId: string, person: string) {
  const db = new Database(process.env.PARLEY_E2E_DB, { timeout: 5_000 });
  try {
    expect(db.prepare(`UPDATE Question SET closedByUser = ? WHERE id = ?`).run(person, questionId).changes).toBe(1);
  } finally {
    db.close();
  }
}

test("the answered card's record says who answered and from where, 'by you' for the reader's own", async ({ context, request }) => {
  const session = await new Api(request).createSession();
  const tab = await ChatPage.open(context, session.id);
  await tab.send("/deploy");
  await tab.expectCard("Which environment should I deploy to?");
  await tab.option("staging").click();
  await tab.expectNoCard();
  const record = tab.page.locator('[data-testid="question-record"][data-status="answered"]');
  // This browser is signed in with the server token: the administrator, `local`, who answered.
  await expect(record).toHaveAttribute("data-closed-by-user", "local");
  await expect(record.getByTestId("question-record-via")).toHaveText("by you, in a browser tab");
  const id = (await record.getAttribute("data-question-id"))!;

  settledBy(id, "alice");
  await tab.page.reload();
  await expect(record).toHaveAttribute("data-closed-by-user", "alice");
  await expect(record.getByTestId("question-record-outcome")).toHaveText("Answered: staging");
  await expect(record.getByTestId("question-record-via")).toHaveText("by alice, in a browser tab");
});
