import { createRequire } from "node:module";
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { clip, joinBounded, MAX_ERROR_ITEMS } from "../../protocol/bounded-text";
import { AppError } from "../../protocol/errors";
import { FORM_FORMATS, FORMAT_CHECKS } from "../../protocol/forms";
import { hasControlChar } from "../../protocol/permissions";
import { canonicalJson } from "../../protocol/plain-json";
import { PATH_FORMAT } from "../../permissions/edited-paths";

/** The JSON Schema keywords a reply schema may use. Anything else is refused when the question is asked. */
const ALLOWED = new Set([
  "type",
  "enum",
  "const",
  "properties",
  "required",
  "items",
  "additionalProperties",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "pattern",
  "$ref",
  "$defs",
  "definitions",
  "title",
  "description",
  "default",
  "examples",
  "$comment",
  // Forms (lib/protocol/forms.ts): a choice's titles, `oneOf: [{ const, title }]`, a multi-select's `items.anyOf`, and the formats below.
  "format",
  "oneOf",
  "anyOf",
  "enumNames",
]);
/** Keywords whose values are maps of subschemas (their keys are names, not keywords). */
const SCHEMA_MAPS = new Set(["properties", "$defs", "definitions"]);
const DYNAMIC = new Set(["$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "$id", "$anchor"]);

const OPTIONS: Options = { allErrors: true, strict: false, loadSchema: undefined };

/**
 * The formats a reply schema may name: a form's, checked as the browser's form checks them, and a
 * tool input's `path` (no control character; lib/permissions/edited-paths.ts checks the rest of an
 * edited one). Any other is `invalid_schema`.
 */
const FORMATS: readonly string[] = [...FORM_FORMATS, PATH_FORMAT];
function withFormats<A extends Pick<Ajv, "addFormat">>(ajv: A): A {
  for (const name of FORM_FORMATS) ajv.addFormat(name, { type: "string", validate: FORMAT_CHECKS[name] });
  ajv.addFormat(PATH_FORMAT, { type: "string", validate: (value: string) => !hasControlChar(value) });
  return ajv;
}

/** Draft-07, Ajv's default, which also reads draft-06 once it knows that draft's meta-schema. Made on first use, like the others (a CLI that checks no reply need not compile meta-schemas). */
let draft07: Ajv | undefined;
function draft07Validator(): Ajv {
  if (draft07) return draft07;
  draft07 = withFormats(new Ajv(OPTIONS));
  draft07.addMetaSchema(createRequire(import.meta.url)("ajv/dist/refs/json-schema-draft-06.json") as object);
  return draft07;
}
let draft2019: Ajv2019 | undefined;
let draft2020: Ajv2020 | undefined;

/**
 * The JSON Schema drafts a reply schema may name in `$schema` (at its top): those the validator
 * knows offline. Without `$schema`, a schema is draft-07. Keyed by URI without its empty fragment.
 */
const DRAFTS: ReadonlyMap<string, { name: string; uri: string; validator: () => Ajv }> = new Map(
  [
    { name: "draft-06", uri: "http://json-schema.org/draft-06/schema#", validator: draft07Validator },
    { name: "draft-07", uri: "http://json-schema.org/draft-07/schema#", validator: draft07Validator },
    { name: "2019-09", uri: "https://json-schema.org/draft/2019-09/schema", validator: () => (draft2019 ??= withFormats(new Ajv2019(OPTIONS))) },
    { name: "2020-12", uri: "https://json-schema.org/draft/2020-12/schema", validator: () => (draft2020 ??= withFormats(new Ajv2020(OPTIONS))) },
  ].map((draft) => [withoutFragment(draft.uri), draft]),
);
const SUPPORTED = [...DRAFTS.values()].map((d) => `${d.name} (${d.uri})`).join(", ");

const cache = new Map<string, ValidateFunction>();

function withoutFragment(uri: string): string {
  return uri.endsWith("#") ? uri.slice(0, -1) : uri;
}

/** The validator for the draft a schema names (draft-07 when it names none); `invalid_schema` for any other. */
function validatorFor(schema: object): Ajv {
  const named = (schema as { $schema?: unknown }).$schema;
  if (named === undefined) return draft07Validator();
  const draft = typeof named === "string" ? DRAFTS.get(withoutFragment(named)) : undefined;
  if (!draft) {
    const shown = typeof named === "string" ? `"${clip(named, 100)}"` : "a value that is not a URI";
    throw new AppError("invalid_schema", `The reply schema's $schema is ${shown}; supported drafts are ${SUPPORTED}.`);
  }
  return draft.validator();
}

/**
 * Checks that a reply schema stays inside the supported subset and only refers to itself
 * (`#...` refs). Remote and dynamic refs are refused here, before anything could fetch them.
 * `$schema` may name a supported draft, at the top only.
 */
export function checkReplySchema(schema: unknown): void {
  const walk = (node: unknown, path: string): void => {
    if (typeof node === "boolean") return;
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      throw new AppError("invalid_schema", `The reply schema at ${clip(path, 200)} is not a schema object.`);
    }
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      const at = clip(`${path}/${key}`, 200);
      if (key === "$schema") {
        if (path !== "#") throw new AppError("invalid_schema", `The reply schema names $schema at ${at}; only its top level may name a draft.`);
        continue;
      }
      if (DYNAMIC.has(key)) throw new AppError("invalid_schema", `The reply schema uses ${key} at ${at}; dynamic and identified schemas are not supported.`);
      if (!ALLOWED.has(key)) throw new AppError("invalid_schema", `The reply schema uses the unsupported keyword "${clip(key, 60)}" at ${at}.`);
      if (key === "format" && !(FORMATS as readonly unknown[]).includes(value)) {
        throw new AppError("invalid_schema", `The reply schema uses the format ${JSON.stringify(clip(String(value), 60))} at ${at}; supported formats are ${FORMATS.join(", ")}.`);
      }
      if (key === "$ref") {
        if (typeof value !== "string" || !value.startsWith("#")) {
          throw new AppError("schema_remote_ref", `The reply schema refers to "${clip(String(value), 200)}" at ${at}; only local refs ("#/...") are allowed.`);
        }
      } else if (SCHEMA_MAPS.has(key)) {
        if (typeof value !== "object" || value === null) throw new AppError("invalid_schema", `${at} must be an object of schemas.`);
        for (const [name, sub] of Object.entries(value)) walk(sub, `${path}/${key}/${name}`);
      } else if (key === "oneOf" || key === "anyOf") {
        if (!Array.isArray(value)) throw new AppError("invalid_schema", `${at} must be a list of schemas.`);
        value.forEach((sub, i) => walk(sub, `${path}/${key}/${i}`));
      } else if (key === "items" || key === "additionalProperties") {
        if (Array.isArray(value)) value.forEach((sub, i) => walk(sub, `${path}/${key}/${i}`));
        else walk(value, `${path}/${key}`);
      }
    }
  };
  walk(schema, "#");
  compile(schema as object);
}

function compile(schema: object): ValidateFunction {
  const key = canonicalJson(schema);
  let validate = cache.get(key);
  if (!validate) {
    const ajv = validatorFor(schema);
    try {
      validate = ajv.compile(schema);
    } catch (err) {
      throw new AppError("invalid_schema", `The reply schema is not valid: ${clip((err as Error).message, 500)}`);
    }
    if (cache.size > 500) cache.clear();
    cache.set(key, validate);
  }
  return validate;
}

/** One reason a reply fails its schema, e.g. `/count must be >= 1` or `value must NOT have additional properties ("extra")`. */
function reasonOf(e: ErrorObject): string {
  const extra = e.keyword === "additionalProperties" ? ` (${JSON.stringify(clip(String(e.params.additionalProperty), 40))})` : "";
  return `${clip(e.instancePath || "value", 100)} ${e.message ?? "is invalid"}${extra}`;
}

/**
 * Throws `reply_schema_mismatch` (or `code`) with the first few reasons (and how many more) when a
 * value does not satisfy its schema: a reply its question's, an edited tool input the tool's.
 */
export function validateAgainstSchema(
  schema: object,
  value: unknown,
  { code = "reply_schema_mismatch", what = "The reply does not match the question's schema" }: { code?: "reply_schema_mismatch" | "invalid_edit"; what?: string } = {},
): void {
  const validate = compile(schema);
  if (validate(value)) return;
  const errors = validate.errors ?? [];
  const reasons = joinBounded(errors.slice(0, MAX_ERROR_ITEMS).map(reasonOf), { total: errors.length });
  throw new AppError(code, `${what}: ${reasons}.`);
}
