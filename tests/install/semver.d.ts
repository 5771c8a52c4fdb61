// The functions of `semver` (present through the dev dependency tree, no @types package) that the engines test and scripts/pack-console.ts use.
declare module 'semver' {
  const semver: {
    minVersion(range: string): { version: string } | null;
    satisfies(version: string, range: string): boolean;
    gte(a: string, b: string): boolean;
  };
  export default semver;
}
