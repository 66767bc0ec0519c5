import { isUuid } from '../domain/ids';
import { notFound } from '../domain/errors';

/**
 * The record a client-given id names in the tenant, or 404 NOT_FOUND: the one lookup every route
 * uses for a path or body id. An id that is not a UUID names nothing and is answered the same way,
 * without a query (PostgreSQL would refuse it with a 500); another tenant's record is not found
 * because `find` runs on the tenant scope.
 */
export async function findOr404<T>(what: string, id: string, find: () => Promise<T | undefined | null>): Promise<T> {
  const row = isUuid(id) ? await find() : undefined;
  if (!row) throw notFound(what);
  return row;
}
