import { expect, test, type Locator, type Page } from "@playwright/test";
import { seriousViolations } from "./axe";
import { Api, ChatPage } from "./chat-page";

/** Issue 11: forms instead of JSON (item 2) and a question card made for people (item 5). */

const EVERY_KIND = {
  type: "object",
  properties: {
    destination: { type: "string", title: "Destination", description: "A city or a region", minLength: 3, maxLength: 60 },
    nights: { type: "integer", title: "Nights", minimum: 1, maximum: 14 },
    budget: { type: "number", title: "Budget per night", minimum: 0 },
    currency: { type: "string", title: "Currency", enum: ["EUR", "USD", "GBP"], enumNames: ["Euro", "US dollar", "Pound sterling"] },
    seat: {
      type: "string",
      title: "Seat",
      oneOf: [
        { const: "aisle", title: "Aisle" },
        { const: "window", title: "Window" },
      ],
    },
    email: { type: "string", title: "Email", format: "email" },
    website: { type: "string", title: "Hotel website", format: "uri" },
    departure: { type: "string", title: "Departure", format: "date" },
    pickup: { type: "string", title: "Pick-up time", format: "date-time" },
    insurance: { type: "boolean", title: "Travel insurance" },
  },
  required: ["destination", "nights", "currency", "email"],
  additionalProperties: false,
};

const field = (page: Page, name: string) => page.locator(`[data-testid="form-input"][data-field="${name}"]`);
const fieldError = (page: Page, name: string) => page.locator(`[data-testid="form-field-error"][data-field="${name}"]`);

/** axe's serious and critical findings on the open card (none expected). */
const axeOnCard = (page: Page) => seriousViolations(page, { within: '[data-testid="question-card"]', rules: "all" });

async function shot(target: Page | Locator, kind: string) {
  await target.screenshot({ path: test.info().outputPath(`card-${kind}.png`) });
}

test.describe("forms", () => {
  test("a form with every field kind: labelled fields, per-field errors that send nothing, then accept hands the run the content", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    const { page } = tab;
    const run = await api.startRun(session.id, "test.form", { prompt: "Where to?", schema: EVERY_KIND });
    await tab.expectCard("Where to?");
    await expect(tab.card()).toHaveAttribute("data-kind", "form");
    // A form, not a JSON editor, and no raw schema anywhere.
    await expect(page.getByTestId("question-text-input")).toHaveCount(0);
    await expect(tab.card()).not.toContainText('"type"');
    await expect(page.getByRole("form", { name: "Where to?" })).toBeVisible();

    // Every field has a label and the control its kind asks for.
    await expect(page.getByLabel("Destination")).toHaveAttribute("type", "text");
    await expect(page.getByLabel("Destination")).toBeFocused();
    await expect(page.getByLabel("Nights")).toHaveAttribute("type", "number");
    await expect(page.getByLabel("Budget per night")).toHaveAttribute("type", "number");
    await expect(page.getByLabel("Currency")).toHaveJSProperty("tagName", "SELECT");
    await expect(page.getByLabel("Currency").locator("option")).toHaveText(["Choose…", "Euro", "US dollar", "Pound sterling"]);
    await expect(page.getByLabel("Seat").locator("option")).toHaveText(["None", "Aisle", "Window"]);
    await expect(page.getByLabel("Email")).toHaveAttribute("type", "email");
    await expect(page.getByLabel("Hotel website")).toHaveAttribute("type", "url");
    await expect(page.getByLabel("Departure")).toHaveAttribute("type", "date");
    await expect(page.getByLabel("Pick-up time")).toHaveAttribute("type", "datetime-local");
    await expect(page.getByLabel("Travel insurance")).toHaveAttribute("type", "checkbox");
    for (const name of ["destination", "nights", "currency", "email"]) await expect(field(page, name)).toHaveAttribute("required", "");
    await expect(field(page, "budget")).not.toHaveAttribute("required", "");
    await shot(tab.card(), "form");

    // Bad input: each error beside its field, and nothing is sent.
    await page.getByLabel("Destination").fill("Li");
    await page.getByLabel("Nights").fill("20");
    await page.getByLabel("Email").fill("ann@");
    await page.getByLabel("Hotel website").fill("example.com");
    await page.getByTestId("question-submit").click();
    await expect(fieldError(page, "destination")).toHaveText("Must be 3 to 60 characters");
    await expect(fieldError(page, "nights")).toHaveText("Must be a whole number from 1 to 14");
    await expect(fieldError(page, "currency")).toHaveText("Required");
    await expect(fieldError(page, "email")).toHaveText("Must be an email address");
    await expect(fieldError(page, "website")).toHaveText("Must be a web address such as https://example.com");
    await expect(fieldError(page, "budget")).toHaveCount(0);
    await expect(page.getByTestId("form-summary")).toHaveText("5 fields need a change.");
    await expect(page.getByLabel("Destination")).toBeFocused();
    await expect(page.getByLabel("Nights")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Nights")).toHaveAccessibleDescription("Must be a whole number from 1 to 14");
    await shot(tab.card(), "form-errors");
    expect(await axeOnCard(page)).toEqual([]);
    const [pending] = await api.pending(session.id);
    expect(pending).toMatchObject({ status: "pending", answer: null });
    expect((await api.run(run.id)).status).toBe("waiting_input");

    // Fixed, each error leaves as its field is fixed; Submit sends the typed values as JSON values.
    await page.getByLabel("Destination").fill("Lisbon");
    await expect(fieldError(page, "destination")).toHaveCount(0);
    await page.getByLabel("Nights").fill("4");
    await page.getByLabel("Budget per night").fill("120.5");
    await page.getByLabel("Currency").selectOption({ label: "Pound sterling" });
    await page.getByLabel("Seat").selectOption({ label: "Window" });
    await page.getByLabel("Email").fill("ann@example.com");
    await page.getByLabel("Hotel website").fill("https://hotel.example.com");
    await page.getByLabel("Departure").fill("2027-05-01");
    await page.getByLabel("Pick-up time").fill("2027-05-01T09:30");
    await page.getByLabel("Travel insurance").check();
    await page.getByLabel("Email").press("Enter");
    await tab.expectNoCard();

    await expect.poll(async () => (await api.run(run.id)).status).toBe("succeeded");
    const { result } = await api.run(run.id);
    expect(result).toMatchObject({
      action: "accept",
      content: {
        destination: "Lisbon",
        nights: 4,
        budget: 120.5,
        currency: "GBP",
        seat: "window",
        email: "ann@example.com",
        website: "https://hotel.example.com",
        departure: "2027-05-01",
        insurance: true,
      },
    });
    expect((result as { content: { pickup: string } }).content.pickup).toMatch(/^2027-05-01T\d\d:30:00\.000Z$/);
    await expect(tab.messages("agent").filter({ hasText: 'Form accepted: {"destination":"Lisbon"' })).toBeVisible();
  });

  test("/trip from the chat: Decline with a reason (Escape opens it) reaches the function", async ({ context, request }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    const { page } = tab;
    await tab.send("/trip");
    await tab.expectCard("Book a trip");
    await expect(page.getByTestId("question-owner")).toHaveText("Book trip");
    // Defaults are filled in.
    await expect(page.getByLabel("Nights")).toHaveValue("3");
    await expect(page.getByLabel("Currency")).toHaveValue("EUR");
    await expect(page.getByLabel("Add travel insurance")).not.toBeChecked();

    // From the keyboard: Escape in a field opens the reason, Escape there goes back to the fields.
    await page.getByLabel("Destination").press("Escape");
    await expect(page.getByTestId("question-decline-message")).toBeFocused();
    await page.getByTestId("question-decline-message").press("Escape");
    await expect(page.getByLabel("Destination")).toBeFocused();
    await page.getByTestId("question-decline").click();
    await expect(page.getByTestId("question-decline-message")).toBeFocused();
    await page.getByTestId("question-decline-message").fill("not this year");
    await page.getByTestId("question-decline-message").press("Enter");
    await tab.expectNoCard();
    await expect(tab.messages("agent").filter({ hasText: 'No trip then. You said: "not this year".' })).toBeVisible();
  });

  test("/trip accepted: the agent books what the form said", async ({ context, request }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    const { page } = tab;
    await tab.send("/trip");
    await tab.expectCard("Book a trip");
    await page.getByLabel("Destination").fill("Kyoto");
    await page.getByLabel("Nights").fill("7");
    await page.getByLabel("Currency").selectOption("USD");
    await page.getByLabel("Email for the booking").fill("ann@example.com");
    await page.getByTestId("question-submit").click();
    await tab.expectNoCard();
    await expect(tab.messages("agent").filter({ hasText: "Booked 7 nights in Kyoto, paid in USD. The confirmation goes to ann@example.com." })).toBeVisible();
  });

  test("a reply-schema question (/budget) whose schema is a flat object renders the same form; the server checks it field by field", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    const { page } = tab;
    await tab.send("/budget");
    await tab.expectCard("What is the monthly budget?");
    await expect(tab.card()).toHaveAttribute("data-kind", "form");
    await expect(page.getByLabel("Amount")).toHaveAttribute("type", "number");
    await expect(page.getByLabel("Currency").locator("option")).toHaveText(["Choose…", "EUR", "USD", "GBP"]);

    // A script that skips the form is told which field is wrong, by the same rules.
    const [question] = await api.pending(session.id);
    const refused = await api.reply(question!.id, { amount: 0, currency: "JPY" });
    expect(refused.status()).toBe(422);
    expect((await refused.json()).error).toMatchObject({
      code: "reply_schema_mismatch",
      details: { fields: { amount: "a whole number from 1 to 1000000", currency: "one of EUR, USD, GBP" } },
    });

    await page.getByLabel("Amount").fill("250");
    await page.getByLabel("Currency").selectOption("EUR");
    await page.getByTestId("question-submit").click();
    await tab.expectNoCard();
    await expect(tab.messages("agent").filter({ hasText: "Budget set to 250 EUR a month." })).toBeVisible();
  });
});

test.describe("the card for people", () => {
  test("a readable owner, no countdown on a 30-minute question, no Submit when a tap answers", async ({ context, request }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    const { page } = tab;
    await tab.send("/deploy");
    await tab.expectCard("Which environment should I deploy to?");
    await expect(page.getByRole("region", { name: "Which environment should I deploy to?" })).toBeVisible();
    await expect(page.getByTestId("question-owner")).toHaveText("Deploy");
    await expect(page.getByTestId("question-countdown")).toHaveCount(0);
    await expect(page.getByTestId("question-submit")).toHaveCount(0);
    // With a mouse, the number keys show (a touch screen hides them: see the phone test).
    await expect(page.locator("[data-key-hint]").first()).toBeVisible();
    await expect(page.getByTestId("question-key-hint")).toBeVisible();
    await shot(tab.card(), "choice");
    await tab.option("staging").click();
    await tab.expectNoCard();

    // A choice with "Other" needs Submit for the typed text.
    await tab.send("/coffee");
    await tab.expectCard("What would you like to drink?");
    await expect(page.getByTestId("question-owner")).toHaveText("Order coffee");
    await expect(page.getByTestId("question-countdown")).toHaveCount(0);
    await expect(page.getByTestId("question-submit")).toBeVisible();
    await shot(tab.card(), "choice-other");
    await tab.option("Espresso").click();
    await tab.expectNoCard();
  });

  test("a countdown on a question with a short deadline; screenshots of free text, multi, confirm and approval", async ({ context, request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const tab = await ChatPage.open(context, session.id);
    const { page } = tab;

    await tab.send("/countdown");
    await tab.expectCard("Type the launch code within 20 seconds.");
    await expect(page.getByTestId("question-countdown")).toBeVisible();
    await expect(page.getByTestId("question-countdown")).toHaveText(/^00:[0-2]\d$/);
    await shot(tab.card(), "free-text");
    await page.getByTestId("question-text-input").fill("1234");
    await page.getByTestId("question-text-input").press("Enter");
    await tab.expectNoCard();

    await tab.send("/pizza");
    await tab.expectCard("Which toppings do you want?");
    await expect(page.getByTestId("question-submit")).toBeVisible();
    await shot(tab.card(), "multi");
    expect(await axeOnCard(page)).toEqual([]);
    await page.getByTestId("question-checkbox").first().check();
    await page.getByTestId("question-submit").click();
    await tab.expectNoCard();

    const confirm = await api.startRun(session.id, "test.ask", { prompt: "Ship it?", confirm: true, detail: "Three services change." });
    await tab.expectCard("Ship it?");
    await expect(page.getByTestId("question-countdown")).toHaveCount(0);
    await shot(tab.card(), "confirm");
    await page.getByTestId("confirm-yes").click();
    await tab.expectNoCard();
    await expect.poll(async () => (await api.run(confirm.id)).status).toBe("succeeded");

    await tab.send("/tests");
    await expect(page.locator('[data-testid="question-card"][data-kind="approval"]')).toBeVisible();
    await expect(page.getByTestId("question-owner")).toHaveText("Run tests");
    await expect(page.getByTestId("question-countdown")).toHaveCount(0);
    await shot(tab.card(), "approval");
    expect(await axeOnCard(page)).toEqual([]);
    await page.getByTestId("approval-allow-once").click();
    await tab.expectNoCard();
  });

  test("with two cards waiting, '1 of 2' has real, named, 40-pixel buttons", async ({ context, request }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    const { page } = tab;
    await tab.send("/evening");
    await expect(page.getByTestId("question-position")).toHaveText("1 of 2");
    const next = page.getByRole("button", { name: "Next question" });
    const previous = page.getByRole("button", { name: "Previous question" });
    for (const button of [next, previous]) {
      const box = (await button.boundingBox())!;
      expect(box.width).toBeGreaterThanOrEqual(40);
      expect(box.height).toBeGreaterThanOrEqual(40);
    }
    const first = await page.getByTestId("question-prompt").innerText();
    await next.click();
    await expect(page.getByTestId("question-position")).toHaveText("2 of 2");
    await expect(page.getByTestId("question-prompt")).not.toHaveText(first);
    await shot(tab.card(), "two-waiting");
    expect(await axeOnCard(page)).toEqual([]);
    await previous.click();
    await expect(page.getByTestId("question-prompt")).toHaveText(first);
  });
});

test.describe("on a phone (touch, 390×844)", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("keyboard hints are hidden, and the form fits without sideways scrolling", async ({ context, request }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    const { page } = tab;
    expect(await page.evaluate(() => matchMedia("(pointer: coarse)").matches)).toBe(true);

    await tab.send("/deploy");
    await tab.expectCard("Which environment should I deploy to?");
    await expect(tab.option("staging")).toBeVisible();
    for (const hint of await page.locator("[data-key-hint]").all()) await expect(hint).toBeHidden();
    await expect(page.getByTestId("question-key-hint")).toBeHidden();
    await shot(page, "mobile-choice");
    await tab.option("staging").tap();
    await tab.expectNoCard();

    await tab.send("/trip");
    await tab.expectCard("Book a trip");
    for (const hint of await page.locator("[data-key-hint]").all()) await expect(hint).toBeHidden();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.getByTestId("question-submit").tap();
    await expect(fieldError(page, "destination")).toHaveText("Required");
    await shot(page, "mobile-form");
  });
});
