/** Next.js config for the Fairway console (app/). */
const config = {
  // Type-checked separately (`npx tsc --noEmit -p tsconfig.next.json`), so `npm start` builds fast.
  typescript: { tsconfigPath: 'tsconfig.next.json', ignoreBuildErrors: true },
  poweredByHeader: false,
  reactStrictMode: true,
};
export default config;
