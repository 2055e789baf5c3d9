import { createECDH, randomBytes, randomUUID } from "node:crypto";
import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { PushDevicesSchema } from "../lib/protocol/push";
import { Api } from "./chat-page";
import { answerAs, peopleOnServer, shareWith } from "./people";

/**
 * Every state of the UI a person can reach, each opened the way a person would meet it: the spec
 * that looks at all of them (e2e/ui-states.spec.ts) goes through this one list.
 */

/** A phone as the issue names it: 360 px wide, touch, a mobile browser. */
export const PHONE = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } as const;
export const DESKTOP = { viewport: { width: 1280, height: 800 } } as const;

/** A state's server side: made once, then shown in as many tabs (desktop, phone) as a spec likes. */
export interface UiState {
  name: string;
  /** Makes what the state needs on the server; returns the path to open. */
  prepare(api: Api, request: APIRequestContext): Promise<string>;
  /** After the page opened: waits for the state, or clicks to it (an open sheet, a reason field). */
  reach(page: Page): Promise<void>;
  /** Removes what the state made that would reach into later tests. */
  cleanup?(request: APIRequestContext): Promise<void>;
}

const WIDE_LINE = `export const wideConfiguration = { ${Array.from({ length: 12 }, (_, i) => `optionNumber${i}: "a value that goes on and on"`).join(", ")} };`;

/** A form with every kind of field, a multi-select among them. */
const EVERY_KIND = {
  type: "object",
  properties: {
    destination: { type: "string", title: "Destination", description: "A city or a region", minLength: 3, maxLength: 60 },
    notes: { type: "string", title: "Notes for the hotel", maxLength: 500 },
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
    meals: { type: "array", title: "Meals", items: { type: "string", enum: ["Breakfast", "Lunch", "Dinner", "Late snack"] } },
    email: { type: "string", title: "Email", format: "email" },
    website: { type: "string", title: "Hotel website", format: "uri" },
    departure: { type: "string", title: "Departure", format: "date" },
    pickup: { type: "string", title: "Pick-up time", format: "date-time" },
    insurance: { type: "boolean", title: "Travel insurance" },
  },
  required: ["destination", "nights", "currency", "email"],
  additionalProperties: false,
};

const card = (page: Page) => page.getByTestId("question-card");
const ready = async (page: Page) => {
  await expect(page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
};
const cardShows = async (page: Page, kind?: string) => {
  await ready(page);
  await expect(card(page)).toBeVisible();
  if (kind) await expect(card(page)).toHaveAttribute("data-kind", kind);
};

async function sessionAsking(api: Api, fn: string, input: unknown, count = 1): Promise<string> {
  const session = await api.createSession();
  await api.startRun(session.id, fn, input);
  await api.waitForPending(session.id, count);
  return `/s/${session.id}`;
}

export const CARD_STATES: UiState[] = [
  {
    name: "free text question",
    prepare: (api) => sessionAsking(api, "test.ask", { prompt: "What should the project be called?" }),
    reach: (page) => cardShows(page, "question"),
  },
  {
    name: "single choice with Other",
    prepare: (api) => sessionAsking(api, "test.ask", { prompt: "What would you like to drink?", options: ["Espresso", "Flat white", "Green tea"], allowCustom: true }),
    reach: (page) => cardShows(page, "question"),
  },
  {
    name: "multi choice",
    prepare: (api) => sessionAsking(api, "test.ask", { prompt: "Which toppings do you want?", options: ["Mozzarella", "Mushrooms", "Olives", "Basil", "Chili"], multi: true }),
    reach: (page) => cardShows(page, "question"),
  },
  {
    name: "confirm with detail",
    prepare: (api) => sessionAsking(api, "test.ask", { prompt: "Archive all 5 emails?", confirm: true, detail: "5 emails older than 30 days:\n• Weekly digest\n• Your invoice #4411" }),
    reach: (page) => cardShows(page, "confirm"),
  },
  {
    name: "decline reason open",
    prepare: (api) => sessionAsking(api, "test.ask", { prompt: "Which environment?", options: ["production", "staging"] }),
    reach: async (page) => {
      await cardShows(page, "question");
      await page.getByTestId("question-decline").click();
      await expect(page.getByTestId("question-decline-message")).toBeVisible();
    },
  },
  {
    name: "two questions waiting",
    prepare: async (api) => {
      const session = await api.createSession();
      await api.startRun(session.id, "test.ask", { prompt: "First of two?", options: ["yes", "no"] });
      await api.startRun(session.id, "test.ask", { prompt: "Second of two?", options: ["yes", "no"] });
      await api.waitForPending(session.id, 2);
      return `/s/${session.id}`;
    },
    reach: async (page) => {
      await cardShows(page);
      await expect(page.getByTestId("question-position")).toHaveText(/1 of 2/);
    },
  },
  {
    name: "approval with a command",
    prepare: (api) => sessionAsking(api, "test.tool", { tool: "shell", input: { command: "npm test -- --reporter=verbose --coverage --testNamePattern='a rather long pattern of tests'" } }),
    reach: (page) => cardShows(page, "approval"),
  },
  {
    name: "approval Allow always choice",
    prepare: (api) => sessionAsking(api, "test.tool", { tool: "shell", input: { command: "npm test" } }),
    reach: async (page) => {
      await cardShows(page, "approval");
      await page.getByTestId("approval-allow-always").click();
      await expect(page.getByTestId("approval-always-choice")).toBeVisible();
    },
  },
  {
    name: "approval reject feedback open",
    prepare: (api) => sessionAsking(api, "test.tool", { tool: "shell", input: { command: "git push origin main" } }),
    reach: async (page) => {
      await cardShows(page, "approval");
      await page.getByTestId("approval-reject").click();
      await expect(page.getByTestId("approval-reject-message")).toBeVisible();
    },
  },
  {
    name: "approval Edit and allow open",
    prepare: (api) => sessionAsking(api, "test.tool", { tool: "shell", input: { command: "npm run build -- --mode=production", cwd: "docs" } }),
    reach: async (page) => {
      await cardShows(page, "approval");
      await page.getByTestId("approval-edit").click();
      await expect(page.getByTestId("approval-editor")).toBeVisible();
    },
  },
  {
    name: "approval with a wide diff",
    prepare: (api) =>
      sessionAsking(api, "test.tool", { tool: "write_file", input: { path: "src/a/rather/deeply/nested/folder/wide-configuration-file.ts", content: `// Wide.\n${WIDE_LINE}\n${"x".repeat(300)}\n` } }),
    reach: async (page) => {
      await cardShows(page, "approval");
      await expect(page.locator('[data-testid="approval-preview"][data-preview-type="diff"]')).toBeVisible();
    },
  },
  {
    name: "read-only card waiting for another person",
    prepare: async (api, request) => {
      await peopleOnServer(["carol"]);
      const session = await api.createSession();
      await shareWith(request, session.id, ["carol"]);
      await api.startRun(session.id, "test.ask", { prompt: "Ship release 2.4 to production?", confirm: true, detail: "12 commits since 2.3, all checks green.", answerers: ["carol"] });
      await api.waitForPending(session.id);
      return `/s/${session.id}`;
    },
    reach: async (page) => {
      await cardShows(page, "confirm");
      await expect(card(page)).toHaveAttribute("data-readonly", "");
      await expect(page.getByTestId("question-waiting")).toHaveText("Waiting for carol");
    },
  },
  {
    name: "approval of several, 1 of 2 approved",
    prepare: async (api, request) => {
      const [bob] = await peopleOnServer(["bob", "carol"]);
      const session = await api.createSession();
      await shareWith(request, session.id, ["bob", "carol"]);
      await api.startRun(session.id, "test.team-tool", { tool: "shell", input: { command: "npm run deploy -- --env production" }, answerers: ["local", "bob", "carol"], approvals: { required: 2 } });
      const [asked] = await api.waitForPending(session.id);
      expect((await answerAs(request, bob!, asked!.id, "once")).outcome).toBe("voted");
      return `/s/${session.id}`;
    },
    reach: async (page) => {
      await cardShows(page, "approval");
      await expect(page.getByTestId("approval-count")).toHaveText("1 of 2 approved — bob");
      await expect(page.getByTestId("approval-allow-once")).toBeVisible();
    },
  },
  {
    name: "form with every field kind",
    prepare: (api) => sessionAsking(api, "test.form", { prompt: "Where to?", schema: EVERY_KIND, detail: "For the trip in May." }),
    reach: (page) => cardShows(page, "form"),
  },
];

export const PAGE_STATES: UiState[] = [
  {
    name: "home",
    prepare: async (api) => {
      await api.createSession();
      return "/";
    },
    // The first page is a composer with the suggestions; the chat list is the sidebar's (a phone's drawer).
    reach: async (page) => {
      await expect(page.getByTestId("composer-input")).toBeEditable();
      await expect(page.getByTestId("suggestion").first()).toBeVisible();
    },
  },
  {
    name: "empty chat",
    prepare: async (api) => `/s/${(await api.createSession()).id}`,
    reach: async (page) => {
      await ready(page);
      await expect(page.getByTestId("empty-chat")).toBeVisible();
      await expect(page.getByTestId("composer")).toBeVisible();
    },
  },
  {
    name: "answered records",
    prepare: async (api) => {
      const session = await api.createSession();
      await api.startRun(session.id, "test.ask", { prompt: "Pick a colour", options: ["red", "blue"] });
      const [asked] = await api.waitForPending(session.id);
      expect((await api.reply(asked!.id, "red")).ok()).toBe(true);
      await api.startRun(session.id, "test.tool", { tool: "shell", input: { command: "npm test" } });
      const [approval] = await api.waitForPending(session.id);
      expect((await api.reply(approval!.id, "once")).ok()).toBe(true);
      await api.waitForPending(session.id, 0);
      return `/s/${session.id}`;
    },
    reach: async (page) => {
      await ready(page);
      await expect(page.getByTestId("question-record")).toHaveCount(2);
      await expect(page.getByTestId("question-record-via").first()).toBeVisible();
    },
  },
  {
    name: "permissions sheet",
    prepare: async (api, request) => {
      const session = await api.createSession();
      expect((await request.post(`/api/sessions/${session.id}/rules`, { data: { tool: "shell", pattern: "npm test*", decision: "allow" } })).status()).toBe(201);
      return `/s/${session.id}`;
    },
    reach: async (page) => {
      await ready(page);
      await page.getByTestId("permissions-button").click();
      await expect(page.getByTestId("permission-rule-remove")).toBeVisible();
    },
  },
  {
    name: "notify this device panel",
    prepare: async (api, request) => {
      // Another of this person's devices is listed, with its Remove button.
      const ecdh = createECDH("prime256v1");
      const keys = { p256dh: ecdh.generateKeys().toString("base64url"), auth: randomBytes(16).toString("base64url") };
      const device = { endpoint: `https://fcm.googleapis.com/fcm/send/ui-state-${randomUUID()}`, keys, device: UI_DEVICE };
      expect((await request.post("/api/push/subscriptions", { data: device })).status()).toBe(201);
      return `/s/${(await api.createSession()).id}`;
    },
    reach: async (page) => {
      await ready(page);
      await page.getByTestId("notify-button").click();
      await expect(page.getByTestId("notify-panel")).toBeVisible();
      await expect(page.getByTestId("notify-device").filter({ hasText: UI_DEVICE })).toBeVisible();
    },
    // Every later question would be pushed to it, at a push service no test reaches.
    cleanup: removeUiDevices,
  },
  {
    name: "account menu",
    prepare: async (api) => `/s/${(await api.createSession()).id}`,
    reach: async (page) => {
      await ready(page);
      await page.getByTestId("account-button").click();
      await expect(page.getByTestId("account-panel")).toBeVisible();
      await expect(page.getByTestId("sign-out")).toBeVisible();
    },
  },
  {
    name: "people panel",
    prepare: async (api, request) => {
      await peopleOnServer(["bob"]);
      const session = await api.createSession();
      expect((await request.post(`/api/sessions/${session.id}/members`, { data: { user: "bob" } })).status()).toBe(201);
      return `/s/${session.id}`;
    },
    reach: async (page) => {
      await ready(page);
      await page.getByTestId("people-button").click();
      await expect(page.getByTestId("person-remove")).toBeVisible();
      await expect(page.getByTestId("people-add-name")).toBeVisible();
    },
  },
  {
    name: "a chat shared with me, its People panel",
    prepare: async (_api, request) => {
      // Bob's chat, shared with the person signed in here (local).
      const [bob] = await peopleOnServer(["bob"]);
      const asBob = { headers: { authorization: `Bearer ${bob!.token}` } };
      const created = await request.post("/api/sessions", { ...asBob, data: { title: "Bob’s plans" } });
      expect(created.status()).toBe(201);
      const { id } = (await created.json()) as { id: string };
      expect((await request.post(`/api/sessions/${id}/members`, { ...asBob, data: { user: "local" } })).status()).toBe(201);
      return `/s/${id}`;
    },
    reach: async (page) => {
      await ready(page);
      await page.getByTestId("people-button").click();
      await expect(page.getByTestId("person-leave")).toBeVisible();
      // Local is the administrator: it may share bob's chat on.
      await expect(page.getByTestId("people-add-name")).toBeVisible();
    },
  },
  {
    name: "session list",
    prepare: async (api) => `/s/${(await api.createSession()).id}`,
    reach: async (page) => {
      await ready(page);
      // A phone opens its drawer; a wide screen shows the list beside the chat.
      const drawer = page.getByTestId("drawer-open");
      if (await drawer.isVisible()) await drawer.click();
      await expect(page.locator('[data-testid="session-link"][aria-current="page"]').filter({ visible: true })).toBeVisible();
    },
  },
  {
    name: "delete a chat dialog",
    prepare: async (api) => `/s/${(await api.createSession()).id}`,
    reach: async (page) => {
      await ready(page);
      const drawer = page.getByTestId("drawer-open");
      if (await drawer.isVisible()) await drawer.click();
      const row = page.locator('[data-testid="session-row"]:has([aria-current="page"])').filter({ visible: true });
      await row.getByTestId("session-menu-button").click();
      await page.getByTestId("session-delete").click();
      await expect(page.getByTestId("delete-chat-dialog")).toBeVisible();
    },
  },
];

/** The other device the Notify panel's state lists. */
const UI_DEVICE = "Old tablet";

async function removeUiDevices(request: APIRequestContext): Promise<void> {
  const { devices } = PushDevicesSchema.parse(await (await request.get("/api/push/subscriptions")).json());
  for (const d of devices.filter((d) => d.device === UI_DEVICE)) expect((await request.delete(`/api/push/subscriptions/${d.id}`)).status()).toBe(204);
}

/** Opens a state in a page: its server side made first. */
export async function openState(page: Page, request: APIRequestContext, state: UiState): Promise<void> {
  const path = await state.prepare(new Api(request), request);
  await page.goto(path);
  await state.reach(page);
}
