import fc from "fast-check";
import { deepJsonText, deepShapeArb, depthArb, hugeSizeArb, hugeString, manyKeysText } from "./big-json";
import { anyJson, arbitraryOf, jsonTypeOf, typesOf, type JsonSchema } from "./schema-arbitrary";

/**
 * Mutations of a valid object body away from its schema, as JSON text (some mutations, such as a
 * duplicate key, `1e999` or 5,000 levels of nesting, cannot be written as a JS value and
 * serialized). Each mutant names its mutation, for the failure report.
 */
export interface Mutant {
  mutation: string;
  text: string;
}

/** An object as its entries, each value already JSON text. */
type Entries = Array<[key: string, json: string]>;

const render = (entries: Entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;
const entriesOf = (value: Record<string, unknown>): Entries => Object.entries(value).map(([k, v]) => [k, JSON.stringify(v)]);
const set = (entries: Entries, key: string, json: string): Entries => [...entries.filter(([k]) => k !== key), [key, json]];

/** Values of each JSON type, to put where another type belongs. */
const VALUE_OF_TYPE: Record<string, fc.Arbitrary<unknown>> = {
  string: fc.string({ maxLength: 20 }),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
  integer: fc.integer(),
  boolean: fc.boolean(),
  null: fc.constant(null),
  array: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  object: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
};

/** Tokens that look like numbers JSON cannot carry, or carry oddly (`1e999` parses as Infinity). */
export const NON_FINITE_TOKENS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1e-400", "-0", "123456789012345678901234567890", '"NaN"', '"Infinity"', "0x10", "+1", ".5", "01"];

/** Keys that reach an object's prototype when a parser or merge is careless. */
export const PROTOTYPE_KEYS = ["__proto__", "constructor", "prototype", "__defineGetter__", "hasOwnProperty", "toString", "valueOf"];

/** Names a caller might mistake for a real key (the wrong command's body, a typo). */
const PLAUSIBLE_KEYS = ["answer", "questionId", "id", "sessionId", "runId", "status", "extra", "Value", "value ", "text", "token", "title", "input", "function", "message"];

export interface MutationOptions {
  /** Keys fixed to a value in every mutant's starting point (a socket command's target id). */
  fixed?: Record<string, unknown>;
  /** Include huge strings and many keys (off where only small payloads make sense). */
  huge?: boolean;
}

export function mutantsOf(schema: JsonSchema, { fixed = {}, huge = true }: MutationOptions = {}): fc.Arbitrary<Mutant> {
  const properties = schema.properties ?? {};
  const keys = Object.keys(properties);
  const required = (schema.required ?? []).filter((k) => k in properties);
  const base = arbitraryOf(schema).map((v) => entriesOf({ ...(v as Record<string, unknown>), ...fixed }));
  const unknownKey = fc.oneof(
    fc.constantFrom(...PLAUSIBLE_KEYS.filter((k) => !(k in properties))),
    fc.string({ minLength: 1, maxLength: 20 }).filter((k) => !(k in properties)),
  );
  // Where a planted value goes: a key of the schema (replacing it) or a key of its own.
  const slot = keys.length ? fc.oneof(fc.constantFrom(...keys), unknownKey) : unknownKey;
  const typed = (keys: string[]) => keys.filter((k) => typesOf(properties[k]!).size < 7);

  const mutations: Array<fc.Arbitrary<Mutant>> = [
    fc.tuple(base, unknownKey, anyJson(2)).map(([e, k, v]) => ({ mutation: `unknown key ${JSON.stringify(k)}`, text: render(set(e, k, JSON.stringify(v))) })),
    fc
      .tuple(
        base,
        fc.constantFrom(...PROTOTYPE_KEYS),
        fc.oneof(
          anyJson(2),
          fc.constant({ polluted: true }),
          fc.constant({ prototype: { polluted: true } }),
          base.map((e) => JSON.parse(render(e)) as unknown),
        ),
      )
      .map(([e, k, v]) => ({
        mutation: `prototype key ${k}`,
        text: render([[k, JSON.stringify(v)], ...e]),
      })),
    fc.tuple(base, slot, fc.constantFrom(...NON_FINITE_TOKENS)).map(([e, k, token]) => ({ mutation: `non-finite ${k}=${token}`, text: render(set(e, k, token)) })),
    fc.tuple(base, slot, depthArb, deepShapeArb).map(([e, k, depth, shape]) => ({ mutation: `${k} nested ${depth} deep (${shape})`, text: render(set(e, k, deepJsonText(depth, shape))) })),
    fc
      .oneof(
        fc.jsonValue({ maxDepth: 2 }).filter((v) => jsonTypeOf(v) !== "object"),
        base.map((e) => [JSON.parse(render(e))]),
      )
      .map((v) => ({
        mutation: `not an object (${jsonTypeOf(v)})`,
        text: JSON.stringify(v),
      })),
    fc.tuple(base, slot, anyJson(1), fc.boolean()).map(([e, k, v, first]) => {
      const planted: [string, string] = [k, JSON.stringify(v)];
      const kept = e.find(([key]) => key === k) ?? [k, "null"];
      return { mutation: `duplicate key ${JSON.stringify(k)}`, text: render([...e.filter(([key]) => key !== k), ...(first ? [planted, kept] : [kept, planted])]) };
    }),
  ];
  if (required.length) {
    mutations.push(fc.tuple(base, fc.constantFrom(...required)).map(([e, k]) => ({ mutation: `without required ${k}`, text: render(e.filter(([key]) => key !== k)) })));
  }
  const withTypes = typed(keys);
  if (withTypes.length) {
    const wrongType = fc.constantFrom(...withTypes).chain((k) => {
      const allowed = typesOf(properties[k]!);
      const others = Object.keys(VALUE_OF_TYPE).filter((t) => !allowed.has(t) && !(t === "integer" && allowed.has("number")));
      return fc.tuple(
        fc.constant(k),
        fc.constantFrom(...others).chain((t) => VALUE_OF_TYPE[t]!),
      );
    });
    mutations.push(fc.tuple(base, wrongType).map(([e, [k, v]]) => ({ mutation: `wrong type ${k}: ${jsonTypeOf(v)}`, text: render(set(e, k, JSON.stringify(v))) })));
    const outOfRange = fc.constantFrom(...withTypes).chain((k) => outOfRangeOf(properties[k]!).map((v) => [k, v] as const));
    mutations.push(fc.tuple(base, outOfRange).map(([e, [k, v]]) => ({ mutation: `out of range ${k}: ${describe(v)}`, text: render(set(e, k, JSON.stringify(v))) })));
  }
  if (huge) {
    mutations.push(
      fc.tuple(base, slot, hugeSizeArb).map(([e, k, size]) => ({ mutation: `${k} a string of ${size} bytes`, text: render(set(e, k, JSON.stringify(hugeString(size)))) })),
      fc.tuple(base, slot, fc.integer({ min: 1_000, max: 95_000 })).map(([e, k, count]) => ({ mutation: `${k} an object of ${count} keys`, text: render(set(e, k, manyKeysText(count))) })),
      fc.tuple(base, fc.integer({ min: 1_000, max: 60_000 })).map(([e, count]) => ({ mutation: `${count} unknown keys`, text: render([...e, ...entriesOf(JSON.parse(manyKeysText(count)))]) })),
    );
  }
  return fc.oneof(...mutations);
}

/** A value just outside a property's limits: too long, empty, blank, below or above its range, a fraction for an integer. */
function outOfRangeOf(schema: JsonSchema): fc.Arbitrary<unknown> {
  const options: Array<fc.Arbitrary<unknown>> = [];
  const branches = schema.anyOf ?? schema.oneOf ?? [schema];
  for (const branch of branches) {
    const types = typesOf(branch);
    if (types.has("string")) {
      if (branch.maxLength !== undefined) options.push(fc.integer({ min: branch.maxLength + 1, max: branch.maxLength + 100 }).map((n) => "y".repeat(n)));
      if ((branch.minLength ?? 0) > 0) options.push(fc.constantFrom("", " ", "\t\n", "\u00a0", "\u200b"));
    }
    if (types.has("integer") || types.has("number")) {
      if (branch.minimum !== undefined) options.push(fc.constantFrom(branch.minimum - 1, -1, 0, -(2 ** 53)));
      if (branch.maximum !== undefined) options.push(fc.constantFrom(branch.maximum + 1, 2 ** 53, Number.MAX_VALUE));
      if (types.has("integer") && !types.has("number")) options.push(fc.constantFrom(1.5, 0.1, 1e-7));
    }
  }
  return options.length ? fc.oneof(...options) : fc.constant({ unexpected: true });
}

const describe = (v: unknown) => (typeof v === "string" ? `string of ${v.length}` : JSON.stringify(v));
