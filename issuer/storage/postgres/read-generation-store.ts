/** The read generation on PostgreSQL (read-generation-store.ts): moved by migration 3's triggers. */
import type { ReadGenerationStore } from '../read-generation-store.ts';
import type { Sql } from './pool.ts';

export function createPostgresReadGenerationStore(sql: Sql): ReadGenerationStore {
  return {
    async current() {
      return (await sql.query<{ value: number }>('SELECT value FROM read_generation WHERE id = 1')).rows[0]?.value ?? 0;
    },
  };
}
