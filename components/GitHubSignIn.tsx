'use client';
import { signIn } from 'next-auth/react';

export function GitHubSignIn({ callbackUrl }: { callbackUrl: string }) {
  return <button type="button" className="btn btn-primary" onClick={() => void signIn('github', { callbackUrl })}>Sign in with GitHub</button>;
}
