import fc from "fast-check";
import { z } from "zod";

/**
 * fast-check arbitraries derived from zod schemas, through the JSON Schema zod 4 writes
 * (`z.toJSONSchema`, the input side: defaults may be left out). What a derived arbitrary yields is
 * meant to be valid; the fuzz suite still asks the schema itself (`isValid`) before it counts on it,
 * since refinements (trim, depth, size) are not in the JSON Schema.
 */

/** The subset of JSON Schema that zod writes for Parley's wire schemas. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
}

export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
}

/** Whether `value` passes `schema` (what the server's parse will decide). */
export const isValid = (schema: z.ZodType, value: unknown) => schema.safeParse(value).success;

/** Any JSON value, small: what `unknown` (an empty JSON Schema) takes. */
export const anyJson = (maxDepth = 3): fc.Arbitrary<unknown> => fc.jsonValue({ maxDepth });

/** Strings of printable ASCII and of any code point (lone surrogates included), short or at the length limits. */
export function stringWithin(minLength = 0, maxLength = 64): fc.Arbitrary<string> {
  const short = Math.min(maxLength, minLength + 40);
  const units = fc.oneof(fc.constant("grapheme-ascii" as const), fc.constant("grapheme" as const), fc.constant("binary" as const));
  return fc.oneof(
    { weight: 8, arbitrary: units.chain((unit) => fc.string({ unit, minLength, maxLength: short })) },
    // The longest allowed: a limit off by one shows here.
    { weight: 1, arbitrary: fc.constantFrom("x", "é", "🙂").map((c) => c.repeat(Math.max(minLength, c.length === 1 ? maxLength : Math.floor(maxLength / 2)))) },
  );
}

export function arbitraryOf(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map(arbitraryOf));
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length === 0) return anyJson();
  return fc.oneof(...types.map((type) => arbitraryOfType(type, schema)));
}

function arbitraryOfType(type: string, schema: JsonSchema): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return schema.pattern ? fc.stringMatching(new RegExp(schema.pattern)) : stringWithin(schema.minLength ?? 0, schema.maxLength ?? 64);
    case "integer":
      return fc.integer({ min: Math.max(schema.minimum ?? -(2 ** 31), Number.MIN_SAFE_INTEGER), max: Math.min(schema.maximum ?? 2 ** 31, Number.MAX_SAFE_INTEGER) });
    case "number":
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(schema.items ? arbitraryOf(schema.items) : anyJson(), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 5) });
    case "object":
      return objectOf(schema);
    default:
      return anyJson();
  }
}

function objectOf(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const model = Object.fromEntries(Object.entries(properties).map(([key, prop]) => [key, arbitraryOf(prop)]));
  return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in properties) });
}

/** The JSON types a schema admits (every type for an empty schema). */
export function typesOf(schema: JsonSchema): Set<string> {
  const all = new Set(["string", "number", "integer", "boolean", "null", "array", "object"]);
  if (schema.const !== undefined || schema.enum) return new Set((schema.enum ?? [schema.const]).map(jsonTypeOf));
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return new Set(union.flatMap((s) => [...typesOf(s)]));
  if (schema.type === undefined) return all;
  const types = new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
  if (types.has("number")) types.add("integer");
  return types;
}

export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}
