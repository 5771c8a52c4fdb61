/**
 * Closed zod schemas of every version-3 wire record (spec 7.2, 7.6, 7.10, 7.15, 7.16), checked
 * against the reference JSON Schemas in the tests. Schema values end in `Schema`; the inferred
 * types carry the bare name.
 */
export * from './common.ts';
export * from './provenance.ts';
export * from './graph.ts';
export * from './policy.ts';
export * from './work.ts';
export * from './lifecycle.ts';
export * from './checkpoint.ts';
export * from './operations.ts';
export * from './parameters.ts';
export * from './commit.ts';
