// `npm run lint`. Type-aware: the rules read the types of tsconfig.json's program (projectService).
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

/** The store boundary (issue 53): statements are made and run only inside lib/server/store. */
const STORE_BOUNDARY = [
  { group: ["**/*-statements"], message: "Statements run only inside lib/server/store: call a store function (lib/server/store/<aggregate>/*-store.ts)." },
  {
    group: ["**/store/typed-sql", "**/store/sql-executor"],
    allowTypeImports: true,
    message: "Statements are made and run only inside lib/server/store; outside it, import only types from here.",
  },
];

export default defineConfig([
  globalIgnores(["node_modules/", ".next/", "dist/", "lib/generated/", "workspace/", "data/", "test-results/", "playwright-report/", "next-env.d.ts"]),
  {
    files: ["**/*.{ts,tsx}"],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // A switch with no default must name every member of its union; a default is this code's
      // deliberate "everything else" (fs error codes, CLI words typed `string | undefined`).
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true, argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      // Noise here: services are closures, not classes, so their "methods" never use `this`.
      "@typescript-eslint/unbound-method": "off",
      // Noise: an async function without await is how a function promises (a throw becomes a rejection).
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    // The store boundary (issue 53): SQL runs only in lib/server/store. Code outside it asks a
    // store's named function; it may hold an executor or a transaction (types) to pass one on, not
    // make or run a statement. Tests may seed and read rows with statements.
    files: ["**/*.{ts,tsx}"],
    ignores: ["lib/server/store/**", "**/*.test.{ts,tsx}", "tests/**", "e2e/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", { patterns: STORE_BOUNDARY }],
      "no-restricted-syntax": [
        "error",
        { selector: "ImportExpression[source.value=/-statements$/]", message: "Statements run only inside lib/server/store: call a store function (lib/server/store/<aggregate>/*-store.ts)." },
      ],
    },
  },
  {
    // The layers (docs/architecture.md): the wire's contracts depend on nothing of Parley's above them.
    files: ["lib/protocol/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            ...STORE_BOUNDARY,
            {
              group: ["**/server/**", "**/client/**", "**/terminal/**", "**/cli/**", "**/components/**", "**/workers/**", "@/*", "react", "react-dom", "next", "next/*", "ink"],
              message: "lib/protocol holds the contracts every side shares: it imports only zod, node's own modules and itself.",
            },
          ],
        },
      ],
    },
  },
  {
    // What runs in a browser or a terminal client reaches the server over the wire only.
    files: ["components/**/*.{ts,tsx}", "lib/client/**/*.{ts,tsx}", "lib/terminal/**/*.{ts,tsx}"],
    ignores: ["**/*.test.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            ...STORE_BOUNDARY,
            { group: ["**/server/**", "@/lib/server/**", "**/workers/**", "@/workers/**"], message: "Client code talks to the server through lib/protocol's contracts, never its modules." },
          ],
        },
      ],
    },
  },
  {
    // Small modules with one job (issue 53): no function of the server, the clients or the workers runs past a screen or two.
    files: ["lib/**/*.{ts,tsx}", "workers/**/*.ts"],
    ignores: ["**/*.test.{ts,tsx}"],
    rules: { "max-lines-per-function": ["error", { max: 150, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Tests, end-to-end specs and the bench and fault harnesses read JSON bodies (typed any) and assert on them.
    files: ["**/*.test.{ts,tsx}", "tests/**", "e2e/**", "scripts/**"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
  {
    // Playwright hands the fixtures as the first argument: a test that needs none destructures `{}`.
    files: ["e2e/**"],
    rules: { "no-empty-pattern": "off" },
  },
  {
    // The React code: the web app and the terminal client (Ink).
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "lib/client/**/*.{ts,tsx}", "lib/terminal/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    // Only the two classic rules: the React Compiler's rules (in the plugin's presets) judge code for a compiler this app does not use.
    rules: { "react-hooks/rules-of-hooks": "error", "react-hooks/exhaustive-deps": "error" },
  },
  {
    files: ["**/*.mjs"],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
]);
