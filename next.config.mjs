/** Next.js config for the Fairway console (app/). */

/**
 * The headers every response carries, static assets included (issue 14 §5).
 * The same list as STATIC_SECURITY_HEADERS in lib/console/security-headers.ts
 * (a test keeps them equal); the per-request CSP is set by proxy.ts.
 */
export const SECURITY_HEADERS = [
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'same-origin' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=(), payment=(), usb=()' },
  { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
];

const config = {
  // Type-checked separately (`npx tsc --noEmit -p tsconfig.next.json`), so `npm start` builds fast.
  typescript: { tsconfigPath: 'tsconfig.next.json', ignoreBuildErrors: true },
  // The production build also writes a self-contained server under .next/standalone (the server
  // files and the runtime files they need): the console package ships it prebuilt (docs/console.md).
  output: 'standalone',
  outputFileTracingExcludes: {
    '**': [
      // No image optimisation (images.unoptimized): sharp and libvips are never loaded.
      '**/node_modules/sharp/**',
      '**/node_modules/@img/**',
    ],
  },
  images: { unoptimized: true },
  poweredByHeader: false,
  reactStrictMode: true,
  async headers() {
    return [{ source: '/:path*', headers: SECURITY_HEADERS }];
  },
};
export default config;
