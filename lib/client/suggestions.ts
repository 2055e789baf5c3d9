/** What a new chat offers to try: what the agent can do, each one message away. */
export interface Suggestion {
  label: string;
  hint: string;
  text: string;
}

export const SUGGESTIONS: Suggestion[] = [
  { label: "What can you do?", hint: "Ask the agent", text: "What can you do?" },
  { label: "Deploy the demo app", hint: "A choice, then progress", text: "/deploy" },
  { label: "Order a coffee", hint: "Options or your own answer", text: "/coffee" },
  { label: "Build a pizza", hint: "Pick several toppings", text: "/pizza" },
  { label: "Update the docs", hint: "Approve file writes", text: "/approvals" },
];
