// docs/contract.md section 5 at the HTTP level: attempts from one client address are answered one at a
// time, in arrival order, each after the delay its turn sees; once 32 attempts of that address
// are waiting (src/throttle/throttle.ts MAX_QUEUED), a further one is refused with 429 and a
// plain-text body after the address's current delay (none here: no failure is recorded yet),
// without a password check and without counting as a failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADMIN_PASSWORD, form, harness } from '../support/harness.ts';

const QUEUE_LIMIT = 32;
const CLIENT = '192.0.2.50';

test('a full queue refuses the next attempt promptly with 429; the queued ones are answered in order, one at a time', async () => {
  const h = await harness();
  try {
    // Hold the first attempt inside its password check until the test lets it go.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const firstEntered = new Promise<void>((resolve) => (entered = resolve));
    const passwordHash = h.store.passwordHash.bind(h.store);
    let checks = 0;
    let active = 0;
    let mostActive = 0;
    h.store.passwordHash = async (user) => {
      const n = ++checks;
      mostActive = Math.max(mostActive, ++active);
      try {
        if (n === 1) {
          entered();
          await gate;
        }
        return await passwordHash(user);
      } finally {
        active--;
      }
    };

    const answered: number[] = [];
    const queued = Array.from({ length: QUEUE_LIMIT }, (_, i) =>
      h.request('/login', form({ username: `user-${i}`, password: 'wrong password' }), CLIENT).then(async (res) => {
        answered.push(i);
        return { status: res.status, text: await res.text() };
      }),
    );
    await firstEntered;
    // Let every other request read its form and join the queue (in-process: well under a second).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(checks, 1, 'only the first attempt is being checked');

    const excess = await Promise.race([
      h.request('/login', form({ username: 'admin', password: ADMIN_PASSWORD }), CLIENT),
      new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 2_000)),
    ]);
    assert.notEqual(excess, 'stuck', 'the excess attempt was queued instead of refused');
    const refused = excess as Response;
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(await refused.text(), /too many sign-in attempts/);
    assert.equal(refused.headers.getSetCookie().length, 0, 'even the right password gets no session');
    assert.deepEqual(answered, [], 'no queued attempt has been answered yet');
    assert.deepEqual(h.clock.sleeps, [], 'no failure yet, so the refusal slept no delay');
    assert.equal(checks, 1, 'the refused attempt checked no password');

    // Another address is not held up by this address's queue.
    const other = await h.request('/login', form({ username: 'admin', password: 'wrong password' }), '192.0.2.51');
    assert.equal(other.status, 401);
    assert.equal(active, 1, 'only the held attempt is still in its check');
    mostActive = 1;

    release();
    const results = await Promise.all(queued);
    assert.deepEqual(
      results.map((r) => r.status),
      Array.from({ length: QUEUE_LIMIT }, () => 401),
    );
    assert.deepEqual(
      answered,
      Array.from({ length: QUEUE_LIMIT }, (_, i) => i),
      'answered in arrival order',
    );
    const failedUsers = h.logs
      .filter((r) => r.event === 'login.local.failed' && r.client === CLIENT)
      .map((r) => r.user);
    assert.deepEqual(
      failedUsers,
      Array.from({ length: QUEUE_LIMIT }, (_, i) => `user-${i}`),
      'checked in arrival order',
    );
    assert.equal(mostActive, 1, 'never two checks of one address at once');
    // One at a time: each attempt saw every earlier failure, so the delays grow 1, 2, 4, 8, 16, then 30 s.
    assert.deepEqual(h.clock.sleeps, [1000, 2000, 4000, 8000, 16000, ...Array<number>(QUEUE_LIMIT - 8).fill(30000)]);
    assert.equal(await h.store.loginFailuresSince(CLIENT, 0), QUEUE_LIMIT, 'the refused attempt is not a failure');

    // With the queue drained the address is served again, after its delay.
    const later = await h.request('/login', form({ username: 'admin', password: ADMIN_PASSWORD }), CLIENT);
    assert.equal(later.status, 303);
  } finally {
    await h.close();
  }
});

test('below the limit nothing is refused: 32 parallel attempts from one address all get their answer', async () => {
  const h = await harness();
  try {
    const results = await Promise.all(
      Array.from({ length: QUEUE_LIMIT }, (_, i) =>
        h.request(
          '/login',
          form({ username: 'admin', password: i === QUEUE_LIMIT - 1 ? ADMIN_PASSWORD : 'nope' }),
          CLIENT,
        ),
      ),
    );
    const statuses = results.map((r) => r.status);
    assert.ok(!statuses.includes(429), JSON.stringify(statuses));
    assert.deepEqual(
      statuses,
      [...Array<number>(QUEUE_LIMIT - 1).fill(401), 303],
      'each was checked: 31 failures, then the right password',
    );
  } finally {
    await h.close();
  }
});

test('attempts from many addresses at once: two are checked, 64 wait, the next is refused with 429 and not counted', async () => {
  const h = await harness();
  try {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const passwordHash = h.store.passwordHash.bind(h.store);
    let checking = 0;
    h.store.passwordHash = async (user) => {
      checking++;
      await gate;
      return passwordHash(user);
    };
    const address = (i: number) => `198.51.100.${i + 1}`;
    const held = Array.from({ length: 66 }, (_, i) =>
      h.request('/login', form({ username: 'admin', password: 'wrong password' }), address(i)),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(checking, 2, 'two password checks at once');
    const refused = await h.request('/login', form({ username: 'admin', password: ADMIN_PASSWORD }), '203.0.113.9');
    assert.equal(refused.status, 429);
    assert.match(await refused.text(), /too many sign-in attempts/);
    assert.equal(await h.store.loginFailuresSince('203.0.113.9', 0), 0, 'no password was checked, nothing counted');
    release();
    const statuses = await Promise.all(held.map(async (res) => (await res).status));
    assert.deepEqual(new Set(statuses), new Set([401]), 'every waiting attempt was checked');
  } finally {
    await h.close();
  }
});
