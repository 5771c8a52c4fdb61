/**
 * One fake GitHub for a test file: started before its tests, closed after them, and every
 * test ends with no response that broke GitHub's OpenAPI description (`fake.violations`).
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createFakeGitHub, type FakeGitHub, type FakeGitHubOptions } from './server.ts';

/** Registers the hooks; the returned function gives the running fake (inside tests and hooks). */
export function useFakeGitHub(options: FakeGitHubOptions = {}): () => FakeGitHub {
  let fake: FakeGitHub | undefined;
  beforeAll(async () => {
    fake = await createFakeGitHub(options);
  });
  afterEach(() => {
    expect(fake?.violations ?? []).toEqual([]);
  });
  afterAll(async () => {
    await fake?.close();
  });
  return () => {
    if (fake === undefined) throw new Error('the fake GitHub is used outside the tests of its file');
    return fake;
  };
}
