'use client';
/** Local-mode sign-in with the single-use login token printed at start-up; the role is the console's configuration, not a choice here. */
import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';

export function LoginForm({ token: initial, callbackUrl, role }: { token: string; callbackUrl: string; role: 'administrator' | 'observer' }) {
  const router = useRouter();
  const [token, setToken] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const res = await signIn('token', { token, redirect: false });
    setBusy(false);
    if (res?.ok !== true || res.error) {
      setError('That token was not accepted. A login token works once and expires; restart the console for a new login URL.');
      return;
    }
    router.push(callbackUrl);
    router.refresh();
  };
  return (
    <form onSubmit={(e) => void submit(e)} className="space-y-3" data-testid="login-form">
      <label className="block">
        <span className="field-label">Login token</span>
        <input className="input w-full font-mono" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} data-testid="login-token" />
      </label>
      <p className="text-sm" data-testid="login-role">
        The console&apos;s start-up login link signs in as <strong>{role}</strong>
        {role === 'administrator' ? ' (started with --admin).' : ' (read-only; start the console with --admin for an administrator link).'}
        {' '}A read-only observer link always signs in as observer.
      </p>
      {error !== null && <p role="alert" className="text-sm text-red-700">{error}</p>}
      <button type="submit" className="btn btn-primary" disabled={busy || token === ''} data-testid="login-submit">{busy ? 'Signing in…' : 'Sign in'}</button>
    </form>
  );
}
