import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { resealSecrets } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

/**
 * growth admin secrets rotate-key: run with the new key in GROWTH_SECRETS_KEY and the old one in
 * GROWTH_SECRETS_KEY_PREVIOUS. Every webhook secret and workspace key sealed by another key is
 * sealed again under the new one, in one transaction; after it the old key opens nothing in the
 * database and may be dropped (docs/operations.md, "Rotating the secrets key").
 */
export function registerSecretsRotateKey(secrets: Command) {
  secrets
    .command('rotate-key')
    .description('seal every stored secret again under GROWTH_SECRETS_KEY (the old key in GROWTH_SECRETS_KEY_PREVIOUS opens them)')
    .option(...JSON_FLAG)
    .action((opts: CommonOptions) =>
      withDatabase(opts, async ({ sql, out, where, secrets: keyring }) => {
        const r = await resealSecrets(sql, keyring)
        out.result(r, () => [
          `Sealed ${r.resealed} secret${r.resealed === 1 ? '' : 's'} of the ${where} again under secrets key ${r.keyId}.`,
          'Every secret is now sealed with that key alone: GROWTH_SECRETS_KEY_PREVIOUS may be removed from every server and worker.',
        ])
      }),
    )
}
