import { describe, expect, it } from 'vitest';
import { contractDigest, interfaceContract } from './deploy.ts';

const installed = { credential_scope: 'repository', effect_scope: 'o/r', max_claims: 1, principal: '7', ref: 'a'.repeat(40), share_keys: false, trust_domain: 'default', workflow: '.github/workflows/w.lock.yml' };

describe('interfaceContract (spec 7.10: authority/interface changes produce a different contract)', () => {
  it('the same declared inputs as the installed revision keep the installed contract, in any order', () => {
    expect(interfaceContract(installed, ['work_queue_assignment', 'x'], ['x', 'work_queue_assignment'])).toBe(contractDigest(installed));
  });

  it('an added or removed input is a different contract, deterministic in the input set', () => {
    const added = interfaceContract(installed, ['work_queue_assignment'], ['work_queue_assignment', 'work_queue_context']);
    expect(added).not.toBe(contractDigest(installed));
    expect(added).toMatch(/^[0-9a-f]{64}$/);
    expect(interfaceContract(installed, ['work_queue_assignment'], ['work_queue_context', 'work_queue_assignment'])).toBe(added);
    expect(interfaceContract(installed, ['work_queue_assignment', 'x'], ['work_queue_assignment'])).not.toBe(contractDigest(installed));
  });

  it('an installed revision whose inputs cannot be read gives no compatibility (conservative)', () => {
    expect(interfaceContract(installed, null, ['work_queue_assignment'])).not.toBe(contractDigest(installed));
  });

  it('the contract depends on the installed authority too', () => {
    const other = { ...installed, principal: '8' };
    expect(interfaceContract(other, [], ['a'])).not.toBe(interfaceContract(installed, [], ['a']));
  });
});
