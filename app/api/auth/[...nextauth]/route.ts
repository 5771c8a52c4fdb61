/** next-auth endpoints (sign-in, callbacks, session, CSRF). */
import NextAuth from 'next-auth';
import { authOptions } from '../../../../lib/auth/options.ts';

const handler = NextAuth(authOptions());
export { handler as GET, handler as POST };
