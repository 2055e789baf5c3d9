import { sql } from "kysely";
import { statement } from "./typed-sql";

/** `SELECT 1`: whether the database answers. */
export const ping = statement((q) => q.selectNoFrom(sql<number>`1`.as("ok")));
