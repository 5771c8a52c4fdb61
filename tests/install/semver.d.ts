// The two functions of `semver` (present through npm's own dependency tree, no @types package) the engines test uses.
declare module 'semver' {
  const semver: {
    minVersion(range: string): { version: string } | null;
    satisfies(version: string, range: string): boolean;
  };
  export default semver;
}
