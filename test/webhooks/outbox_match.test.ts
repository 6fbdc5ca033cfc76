/**
 * SQLite's group of uploads matches its notes to the endpoints in JavaScript (store/outbox.ts,
 * subscribes), every other write in SQL (subscribedWhere): both must pick the same endpoints, for
 * every event of the catalogue and every shape of subscription.
 */
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { EVENTS } from '../../src/events/catalogue.ts';
import {
  notePattern,
  subscribedWhere,
  subscribes,
  subscriptionsFrom,
  subscriptionsSql,
} from '../../src/store/outbox.ts';

test('subscribes picks the endpoints subscribedWhere picks, for every webhook event', () => {
  const db = new DatabaseSync(':memory:');
  db.exec('CREATE TABLE webhook_endpoints (id TEXT, events TEXT, enabled INTEGER)');
  const names = Object.values(EVENTS)
    .filter((e) => e.webhook !== undefined)
    .map((e) => e.name);
  const subscriptions = [
    '*',
    'run.stored',
    '* run.stored',
    'device.revoked device.stale',
    'enroll_token.minted',
    'login.local.failed webhook.test',
    'runs.swept run.deleted',
  ];
  const insert = db.prepare('INSERT INTO webhook_endpoints VALUES (?, ?, ?)');
  subscriptions.forEach((events, i) => insert.run(`wh_${i}`, events, 1));
  insert.run('wh_disabled', '*', 0);
  const read = subscriptionsFrom(db.prepare(subscriptionsSql).all());
  const inSql = db.prepare(`SELECT id FROM webhook_endpoints WHERE ${subscribedWhere('?', '?')} ORDER BY rowid`);
  let matched = 0;
  for (const event of [...names, 'enroll%token.minted', 'run_stored', 'device']) {
    for (const inStar of [true, false]) {
      const bySql = inSql.all(notePattern(event), inStar ? 1 : 0).map((r) => r.id);
      const byJs = read.filter((s) => subscribes(s, { event, inStar })).map((s) => s.id);
      assert.deepEqual(byJs, bySql, `${event}, in *: ${inStar}`);
      matched += byJs.length;
    }
  }
  assert.ok(names.includes('run.stored') && matched > names.length, 'the cases select endpoints');
});
