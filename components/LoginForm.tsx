'use client';
/** Local-mode sign-in with the single-use login token printed at start-up. */
import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';

export function LoginForm({ token: initial, callbackUrl }: { token: string; callbackUrl: string }) {
  const router = useRouter();
  const [token, setToken] = useState(initial);
  const [role, setRole] = useState<'administrator' | 'observer'>('administrator');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const res = await signIn('token', { token, role, redirect: false });
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
      <fieldset className="flex gap-4 text-sm">
        <legend className="field-label">Role for this session</legend>
        <label className="flex items-center gap-1"><input type="radio" name="role" checked={role === 'administrator'} onChange={() => setRole('administrator')} /> administrator</label>
        <label className="flex items-center gap-1"><input type="radio" name="role" checked={role === 'observer'} onChange={() => setRole('observer')} data-testid="login-observer" /> observer (read-only)</label>
      </fieldset>
      {error !== null && <p role="alert" className="text-sm text-red-700">{error}</p>}
      <button type="submit" className="btn btn-primary" disabled={busy || token === ''} data-testid="login-submit">{busy ? 'Signing in…' : 'Sign in'}</button>
    </form>
  );
}
