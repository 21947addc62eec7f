import { parseSecretsKey, SecretsKeyring, useSecretsKeyring } from '../server/src/core/secrets.ts'

/**
 * Loaded before every test file (bunfig.toml): one secrets key for the whole run. Every process a
 * test starts against a database (servers, `growth` commands, workers) inherits it from the
 * environment, and the test process itself seals and opens with it, so they all agree; no key file
 * is made in the home directory. A test about the key sets its own.
 */
process.env.GROWTH_SECRETS_KEY ??= '6b6579206f66207468652074657374732c206e6f742061207365637265742121'
useSecretsKeyring(new SecretsKeyring(parseSecretsKey(process.env.GROWTH_SECRETS_KEY)!, [], 'GROWTH_SECRETS_KEY'))
