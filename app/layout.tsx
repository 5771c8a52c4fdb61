/** The console shell: top bar, providers, and the page. Every page renders server-side. */
import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Nav } from '../components/Nav.tsx';
import { Providers } from '../components/Providers.tsx';
import { currentViewer } from '../lib/auth/session.ts';
import { readConfig, sourceLabel } from '../lib/console/config.ts';
import { consoleGitHubHost } from '../lib/console/store.ts';
import './globals.css';

export const metadata: Metadata = { title: 'Fairway console', description: 'Fair, verifiable work queue on a Git-hosted ledger' };
export const dynamic = 'force-dynamic';

export default async function RootLayout({ children }: { children: ReactNode }) {
  const config = readConfig();
  const viewer = await currentViewer().catch(() => null);
  return (
    <html lang="en">
      <body>
        <Providers>
          <Nav viewer={viewer} source={config === null ? 'not configured' : `${config.demo ? 'demo · ' : ''}${sourceLabel(config.source, consoleGitHubHost(config.source))}`} demo={config?.demo ?? false} pollMs={config?.pollMs ?? 5000} />
          <main className="mx-auto max-w-[1400px] px-4 py-5">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
