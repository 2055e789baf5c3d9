import {
  sql,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Compilable,
  type DatabaseIntrospector,
  type DialectAdapter,
  type QueryCompiler,
  type QueryCreator,
} from "kysely";
import type { DB } from "../../generated/kysely/types";
import type { Engine } from "./db/engine";

export type { DB };
export type SqlEngine = Engine;

type Dialect = { adapter: new () => DialectAdapter; introspector: new (db: Kysely<DB>) => DatabaseIntrospector; compiler: new () => QueryCompiler };
const builder = ({ adapter, introspector, compiler }: Dialect) =>
  new Kysely<DB>({
    dialect: { createAdapter: () => new adapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new introspector(db as Kysely<DB>), createQueryCompiler: () => new compiler() },
  });

/** Builders that only compile: statements run on each engine's own handle, not through Kysely. */
const BUILDERS: Record<Engine, Kysely<DB>> = {
  sqlite: builder({ adapter: SqliteAdapter, introspector: SqliteIntrospector, compiler: SqliteQueryCompiler }),
  postgresql: builder({ adapter: PostgresAdapter, introspector: PostgresIntrospector, compiler: PostgresQueryCompiler }),
};

/** Where a statement's parameter goes: the builder sees it as a value, the compiled statement as a slot to fill at each run. */
class Slot {
  constructor(readonly name: string) {}
}

export type Params = object;

/** A statement compiled for one engine: its text, and how each run's parameters fill its slots. */
export interface CompiledStatement<P extends Params> {
  readonly sql: string;
  bind(params: P): unknown[];
}

/**
 * One SQL statement written once, typed against the schema's tables, compiled once per engine.
 * `build` receives the parameters as placeholders: it must use them as values only (not to
 * choose the statement's shape, which is fixed at the first compile), so they are flat: a
 * placeholder has no fields.
 */
export interface Statement<P extends Params, R> {
  compiled(engine: Engine): CompiledStatement<P>;
  /** Only a type carrier for the rows it returns. */
  readonly rowType?: R;
}

type Built<R> = Compilable<R> | { compile(): { sql: string; parameters: readonly unknown[] } };

export function statement<P extends Params = Record<never, never>, R = unknown>(build: (q: QueryCreator<DB>, params: P, engine: Engine) => Built<R>): Statement<P, R> {
  const byEngine = new Map<Engine, CompiledStatement<P>>();
  return {
    compiled(engine) {
      let compiled = byEngine.get(engine);
      if (!compiled) byEngine.set(engine, (compiled = compile(engine, build)));
      return compiled;
    },
  };
}

function compile<P extends Params>(engine: Engine, build: (q: QueryCreator<DB>, params: P, engine: Engine) => Built<unknown>): CompiledStatement<P> {
  const params = new Proxy({} as P & object, { get: (_, name) => new Slot(String(name)) });
  const { sql, parameters } = build(BUILDERS[engine], params, engine).compile();
  const fills = parameters.map((value) => (value instanceof Slot ? value.name : { constant: value }));
  return {
    sql,
    bind: (given) => fills.map((fill) => (typeof fill === "string" ? (given as Record<string, unknown>)[fill] : fill.constant)),
  };
}

/** The rows a statement returns. */
export type RowOf<S> = S extends Statement<Params, infer R> ? R : never;
/** The parameters a statement takes. */
export type ParamsOf<S> = S extends Statement<infer P, unknown> ? P : never;

/**
 * A parameter PostgreSQL cannot type from where it stands (a SELECT list feeding an INSERT): cast
 * there to `type`; SQLite stores it as given (a CAST would change a date's text).
 */
export const typedParam = <T>(engine: Engine, value: T, type: "timestamp(3)" | "text" | "integer") => (engine === "postgresql" ? sql<T>`CAST(${value} AS ${sql.raw(type)})` : sql<T>`${value}`);

/** The ids of a JSON array: one parameter for any number of them. */
export const jsonIds = (engine: Engine, ids: string) =>
  engine === "postgresql" ? sql<string>`(SELECT json_array_elements_text(CAST(${ids} AS json)))` : sql<string>`(SELECT value FROM json_each(${ids}))`;

/** An INSERT's values: the parameters named by `columns` (each column listed once, where its statement is written). */
export const valuesOf = <P extends object, C extends keyof P>(params: P, columns: readonly C[]): Pick<P, C> => Object.fromEntries(columns.map((column) => [column, params[column]])) as Pick<P, C>;
