/**
 * The audit chain's hash, computed in Node by the verifier and in PostgreSQL by audit_append from
 * the body split around seq: the two must hash the same bytes.
 */
import { chainBodyAround, chainHash, ChainedFields, GENESIS_HASH, verifyChain } from '../../../domain/audit/chain';
import { createHash } from 'node:crypto';

const row: Omit<ChainedFields, 'seq'> = {
  tenant_id: '7b0c2a52-6f0e-4f43-9b8f-0d2c8f1f3a10',
  occurred_at: '2026-11-26T06:00:00.123Z',
  actor_type: 'user',
  actor_id: null,
  action: 'asset.created',
  resource_type: 'asset',
  resource_id: 'ab"c\\d',
  request_id: 'req-1',
  subject_digest: null,
  details: { z: 1, a: ['ü', '𝄞', 'line\nbreak', '\u0000'], nested: { b: null, a: 2.5 } },
};

/** What audit_append computes: sha256(prev || '\n' || head || seq || tail). */
function asTheDatabaseHashes(prev: string, seq: number): string {
  const { head, tail } = chainBodyAround(row);
  return createHash('sha256')
    .update(`${prev}\n${head}${String(seq)}${tail}`, 'utf8')
    .digest('hex');
}

describe('chainBodyAround', () => {
  it.each([1, 9, 10, 12_345, 2 ** 40])('gives the body chainHash hashes, around seq %d', (seq) => {
    expect(asTheDatabaseHashes(GENESIS_HASH, seq)).toBe(chainHash(GENESIS_HASH, { ...row, seq }));
  });

  it('makes a chain the verifier accepts', () => {
    const first = { ...row, seq: 1, prev_hash: GENESIS_HASH, hash: asTheDatabaseHashes(GENESIS_HASH, 1) };
    const second = { ...row, seq: 2, prev_hash: first.hash, hash: asTheDatabaseHashes(first.hash, 2) };
    expect(verifyChain([first, second])).toMatchObject({ valid: true, checked: 2, last_seq: 2 });
    expect(verifyChain([first, { ...second, action: 'asset.deleted' }])).toMatchObject({ valid: false, broken_at_seq: 2 });
  });
});
