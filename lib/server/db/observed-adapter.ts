import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import type { StatementObserver } from "./lock-aware-adapter";

const isRead = (query: SqlQuery) => /^\s*SELECT\b/i.test(query.sql);

/**
 * Counts a driver adapter's statements and transactions for the server's metrics, as the SQLite
 * lock-aware adapter does (BEGIN and COMMIT count as writes). Used on PostgreSQL, where nothing
 * else about the adapter changes.
 */
export function observedAdapterFactory(inner: SqlDriverAdapterFactory, observer: StatementObserver): SqlDriverAdapterFactory {
  const counted = <T extends object>(target: T, extra: (prop: string | symbol, value: unknown) => unknown = () => undefined): T =>
    new Proxy(target, {
      get(obj, prop) {
        const value: unknown = Reflect.get(obj, prop, obj);
        if (typeof value !== "function") return value;
        const method = value as (...args: unknown[]) => unknown;
        if (prop === "queryRaw" || prop === "executeRaw") {
          return (query: SqlQuery) => {
            observer.query(isRead(query) ? "read" : "write", "prisma");
            return method.call(obj, query);
          };
        }
        return extra(prop, value) ?? method.bind(obj);
      },
    });
  return counted(inner, (prop, connect) =>
    prop === "connect"
      ? async () => {
          const adapter = await (connect as () => Promise<SqlDriverAdapter>).call(inner);
          return counted(adapter, (name, startTransaction) =>
            name === "startTransaction"
              ? async (...args: unknown[]) => {
                  const tx = await (startTransaction as (...a: unknown[]) => Promise<Transaction>).apply(adapter, args);
                  observer.transaction();
                  observer.query("write", "prisma");
                  return counted(tx);
                }
              : undefined,
          );
        }
      : undefined,
  );
}
