/**
 * The break-glass account's second factor (docs/contract.md section 14), one row per account. Each
 * write is one conditional statement, so two instances cannot both accept one code: the step and
 * the recovery list change only from the value that was read (no transaction needed).
 */
import type { Sql } from './sql.ts';
import type { TotpStore } from './store.ts';

export const totpSql = {
  get: 'SELECT secret, last_step, recovery, enrolled_at FROM totp_factors WHERE subject = ?',
  create: `INSERT INTO totp_factors (subject, secret, last_step, recovery, enrolled_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (subject) DO NOTHING`,
  // The same statement spends or not: a sign-in with a wrong password costs what a right one does.
  spendStep: `UPDATE totp_factors SET last_step = CASE WHEN ? = 1 THEN ? ELSE last_step END
    WHERE subject = ? AND last_step < ?`,
  spendRecovery: `UPDATE totp_factors SET recovery = CASE WHEN ? = 1 THEN ? ELSE recovery END
    WHERE subject = ? AND recovery = ?`,
  delete: 'DELETE FROM totp_factors WHERE subject = ?',
} as const;

/** The unused recovery hashes are one column, space-separated: spending one rewrites it from the list read. */
const joined = (hashes: readonly string[]) => hashes.join(' ');

export function totpStore(db: Sql): TotpStore {
  return {
    async totpFactor(subject) {
      const row = await db.get(totpSql.get, subject);
      if (!row) return undefined;
      const recovery = row.recovery as string;
      return {
        sealedSecret: row.secret as string,
        lastStep: Number(row.last_step),
        recoveryHashes: recovery === '' ? [] : recovery.split(' '),
        enrolledAt: Number(row.enrolled_at),
      };
    },
    async createTotpFactor(subject, f) {
      const changed = await db.run(
        totpSql.create,
        subject,
        f.sealedSecret,
        f.lastStep,
        joined(f.recoveryHashes),
        f.enrolledAt,
      );
      return changed === 1;
    },
    async spendTotpStep(subject, step, spend) {
      return (await db.critical(totpSql.spendStep, spend ? 1 : 0, step, subject, step)) === 1;
    },
    async spendRecoveryCode(subject, read, hash, spend) {
      const left = read.filter((h) => h !== hash);
      return (await db.critical(totpSql.spendRecovery, spend ? 1 : 0, joined(left), subject, joined(read))) === 1;
    },
    async deleteTotpFactor(subject) {
      return (await db.critical(totpSql.delete, subject)) === 1;
    },
  };
}
