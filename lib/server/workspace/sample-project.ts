/**
 * The small project a new, empty workspace starts with, so that the demos and the offline scripted
 * model do real things in it: a README to read, a changelog to update, and tests `npm test` runs
 * in well under a second with Node's own test runner (no dependencies to install).
 */
export const SAMPLE_PROJECT: Readonly<Record<string, string>> = {
  "README.md": [
    "# Sample project",
    "",
    "A small project in Parley's workspace: the agent's tools read, search, write and run commands here.",
    "",
    "- `src/greet.js` says hello",
    "- `test/greet.test.js` tests it: `npm test`",
    "- `docs/changelog.md` lists what changed",
    "",
  ].join("\n"),
  "package.json": `${JSON.stringify({ name: "sample-project", version: "0.1.0", private: true, type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
  "src/greet.js": [
    "/** A greeting for `name`, or for the world. */",
    "export function greet(name) {",
    "  const who = typeof name === \"string\" && name.trim() ? name.trim() : \"world\";",
    "  return `Hello, ${who}!`;",
    "}",
    "",
  ].join("\n"),
  "test/greet.test.js": [
    "import assert from \"node:assert/strict\";",
    "import { test } from \"node:test\";",
    "import { greet } from \"../src/greet.js\";",
    "",
    "test(\"greets a person by name\", () => {",
    "  assert.equal(greet(\"Ada\"), \"Hello, Ada!\");",
    "});",
    "",
    "test(\"greets the world without a name\", () => {",
    "  assert.equal(greet(), \"Hello, world!\");",
    "  assert.equal(greet(\"  \"), \"Hello, world!\");",
    "});",
    "",
  ].join("\n"),
  "docs/changelog.md": ["# Changelog", "", "## 0.1.0", "- Questions with options, free text and JSON answers", "- Runs that survive a restart", ""].join("\n"),
};
