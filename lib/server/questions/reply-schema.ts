import { Ajv, type ValidateFunction } from "ajv";
import { AppError } from "../../protocol/errors";
import { canonicalJson } from "../../protocol/plain-json";

/** The JSON Schema keywords a reply schema may use. Anything else is refused when the question is asked. */
const ALLOWED = new Set([
  "type", "enum", "const", "properties", "required", "items", "additionalProperties",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "pattern",
  "$ref", "$defs", "definitions", "title", "description", "default", "examples", "$comment",
]);
/** Keywords whose values are maps of subschemas (their keys are names, not keywords). */
const SCHEMA_MAPS = new Set(["properties", "$defs", "definitions"]);
const DYNAMIC = new Set(["$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "$id", "$anchor", "$schema"]);

const ajv = new Ajv({ allErrors: true, strict: false, loadSchema: undefined });
const cache = new Map<string, ValidateFunction>();

/**
 * Checks that a reply schema stays inside the supported subset and only refers to itself
 * (`#...` refs). Remote and dynamic refs are refused here, before anything could fetch them.
 */
export function checkReplySchema(schema: unknown): void {
  const walk = (node: unknown, path: string): void => {
    if (typeof node === "boolean") return;
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      throw new AppError("invalid_schema", `The reply schema at ${path} is not a schema object.`);
    }
    for (const [key, value] of Object.entries(node)) {
      const at = `${path}/${key}`;
      if (DYNAMIC.has(key)) throw new AppError("invalid_schema", `The reply schema uses ${key} at ${at}; dynamic and identified schemas are not supported.`);
      if (!ALLOWED.has(key)) throw new AppError("invalid_schema", `The reply schema uses the unsupported keyword "${key}" at ${at}.`);
      if (key === "$ref") {
        if (typeof value !== "string" || !value.startsWith("#")) {
          throw new AppError("schema_remote_ref", `The reply schema refers to "${String(value)}" at ${at}; only local refs ("#/...") are allowed.`);
        }
      } else if (SCHEMA_MAPS.has(key)) {
        if (typeof value !== "object" || value === null) throw new AppError("invalid_schema", `${at} must be an object of schemas.`);
        for (const [name, sub] of Object.entries(value)) walk(sub, `${at}/${name}`);
      } else if (key === "items" || key === "additionalProperties") {
        if (Array.isArray(value)) value.forEach((sub, i) => walk(sub, `${at}/${i}`));
        else walk(value, at);
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
    try {
      validate = ajv.compile(schema);
    } catch (err) {
      throw new AppError("invalid_schema", `The reply schema is not valid: ${(err as Error).message}`);
    }
    if (cache.size > 500) cache.clear();
    cache.set(key, validate);
  }
  return validate;
}

/** Throws `reply_schema_mismatch` with every reason when a reply does not satisfy its schema. */
export function validateAgainstSchema(schema: object, value: unknown): void {
  const validate = compile(schema);
  if (validate(value)) return;
  const reasons = (validate.errors ?? []).map((e) => `${e.instancePath || "value"} ${e.message ?? "is invalid"}`).join("; ");
  throw new AppError("reply_schema_mismatch", `The reply does not match the question's schema: ${reasons}.`);
}
