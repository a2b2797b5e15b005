/** What a listing asks for: at most `limit` items, after the item `cursor` names (the first page without it). */
export interface PageRequest {
  limit: number;
  cursor?: string;
}

/** One page of a listing: `nextCursor` (opaque) is present only when another item follows. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}
