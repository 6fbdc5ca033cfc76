/**
 * The actions whose `return` goes back to a list of their own that is not the device, run or
 * webhook list (docs/contract.md section 22): enrollment token revoke, access token revoke,
 * collection cancel and session end. Each maker prepares one thing to act on and says the post's
 * path, the list it belongs to and where it answers without `return`. The console's return test
 * and the hostile one share them.
 */
import { createCollection } from '../../src/actions/collections.ts';
import { createAccessToken } from '../../src/actions/access_tokens.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { enrollDevice, type Harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

export interface ListAction {
  name: string;
  who: keyof typeof ACCOUNTS;
  /** One thing to act on: the path of the post, its list's path, and where it goes without `return`. */
  make: (h: Harness, n: number) => Promise<{ path: string; list: string; plain: string }>;
}

const actor = (who: keyof typeof ACCOUNTS) => ({ ...ACCOUNTS[who], client: null });

export const LIST_ACTIONS: ListAction[] = [
  {
    name: 'enrollment token revoke',
    who: 'admin',
    make: async (h, n) => {
      const now = h.clock.now();
      const token = await h.store.createEnrollToken({
        hash: `return-${n}`,
        owner: ACCOUNTS.user.subject,
        createdBy: ACCOUNTS.admin.subject,
        createdAt: now,
        expiresAt: now + 3_600_000,
      });
      return { path: `/enroll-tokens/${token.publicId}/revoke`, list: '/enroll-tokens', plain: '/enroll-tokens' };
    },
  },
  {
    name: 'access token revoke',
    who: 'user',
    make: async (h, n) => {
      const deps = { store: h.store, logger: memoryLogger(), clock: h.clock };
      const made = await createAccessToken(deps, actor('user'), { name: `token ${n}`, expiresIn: '3600' });
      if (!made.ok) throw new Error(JSON.stringify(made));
      return { path: `/tokens/${made.record.publicId}/revoke`, list: '/tokens', plain: '/tokens' };
    },
  },
  {
    name: 'collection cancel',
    who: 'user',
    make: async (h, n) => {
      const d = await enrollDevice(h, ACCOUNTS.user.subject, `device ${n}`);
      const deps = { store: h.store, logger: memoryLogger(), clock: h.clock };
      const made = await createCollection(deps, actor('user'), {
        privacy: 'redacted',
        reason: `ask ${n}`,
        scope: { devices: [d.device] },
      });
      if (!made.ok) throw new Error(JSON.stringify(made));
      const page = `/collections/${made.collection.id}`;
      return { path: `${page}/cancel`, list: page, plain: page };
    },
  },
  {
    name: 'session end',
    who: 'user',
    make: async (h) => {
      // Another session of the same account (recorded once it is used), ended from the one that posts.
      const { cookie, session } = h.signIn(ACCOUNTS.user);
      await h.request('/sessions', { headers: { cookie } });
      const sessions = await h.store.sessionsOf(ACCOUNTS.user.subject, h.clock.now(), session.id);
      const other = sessions.find((s) => s.current);
      if (!other) throw new Error('no session to end');
      return { path: `/sessions/${other.publicId}/end`, list: '/sessions', plain: '/sessions' };
    },
  },
];
