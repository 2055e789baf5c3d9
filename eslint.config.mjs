// `npm run lint`. Type-aware: the rules read the types of tsconfig.json's program (projectService).
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

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
