'use client';
import { signOut } from 'next-auth/react';

export function SignOutButton() {
  return (
    <button type="button" className="rounded border border-slate-600 px-2 py-1 text-slate-100 hover:bg-slate-700" onClick={() => void signOut({ callbackUrl: '/' })}>
      Sign out
    </button>
  );
}
