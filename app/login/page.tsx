/** `/login` — local mode: the start-up token; hosted mode: GitHub OAuth (docs/console.md "Authentication and roles"). */
import { GitHubSignIn } from '../../components/GitHubSignIn.tsx';
import { LoginForm } from '../../components/LoginForm.tsx';
import { readConfig } from '../../lib/console/config.ts';
import { safeCallback } from '../../lib/console/links.ts';
import { firstParam } from '../../lib/console/load.ts';

export const dynamic = 'force-dynamic';

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const config = readConfig();
  const hosted = config?.mode === 'hosted';
  const callbackUrl = safeCallback(firstParam(sp.callbackUrl));
  return (
    <div className="mx-auto mt-10 max-w-md">
      <div className="card">
        <div className="card-h"><h1>Sign in</h1></div>
        <div className="card-b space-y-3">
          {hosted ? (
            <>
              <p className="text-sm">Sign in with GitHub. Your numeric GitHub user id decides your role (observer or administrator).</p>
              <GitHubSignIn callbackUrl={callbackUrl} />
            </>
          ) : (
            <>
              <p className="text-sm">Local mode: use the one-time login token printed in the terminal that started the console. The URL printed there fills it in for you.</p>
              <LoginForm token={firstParam(sp.token) ?? ''} callbackUrl={callbackUrl} role={config?.admin === true ? 'administrator' : 'observer'} />
            </>
          )}
        </div>
      </div>
    </div>
  );
}
