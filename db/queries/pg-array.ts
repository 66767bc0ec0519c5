import { Knex } from 'knex';

/**
 * A JS array bound as ONE PostgreSQL array parameter (`?::text[]`, `unnest(?::uuid[], ...)`).
 * node-postgres serialises arrays (with nulls) itself; knex's binding type only lacks nullable
 * and readonly arrays, hence the cast in this one place.
 */
export function pgArray(values: readonly unknown[]): Knex.Value {
  return values as unknown as string[];
}
