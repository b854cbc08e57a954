/**
 * `npm run accounts:end-sessions -- --account ID --user ID`: the operator's way to end every web
 * app session a user holds (a lost laptop, a suspected stolen cookie), without changing their
 * password or removing them (issue 36). Appends `UserSessionsEnded` to the account stream with
 * the `system` actor `operator`; the sessions projection ends the user's live sessions there.
 * Like accounts:set-plan: at once on PostgreSQL, at the next start on the embedded database
 * (which must be stopped while this runs: PGlite has one owner). An account admin's own doors
 * are removing the user and, for their own sessions, changing the password.
 */
import crypto from 'node:crypto';
import { parseArgs } from 'node:util';
import { systemContext } from '../../core/es/commands.js';
import { runCommand } from '../../core/es/decider.js';
import type { OperatorCommand } from '../../core/module/operator-command.js';
import { accountDecider, accountStream } from './decider.js';

const usage = 'Usage: npm run accounts:end-sessions -- --account ID --user ID';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const endSessionsCommand: OperatorCommand = {
  name: 'accounts:end-sessions',
  parse(argv) {
    const { values } = parseArgs({ args: argv, options: { account: { type: 'string' }, user: { type: 'string' } } });
    if (!values.account || !UUID.test(values.account)) throw new Error(`--account must be an account id.\n${usage}`);
    if (!values.user || !UUID.test(values.user)) throw new Error(`--user must be a user id of that account.\n${usage}`);
    const accountId = values.account.toLowerCase();
    const userId = values.user.toLowerCase();
    return async ({ config, store }) => {
      const context = systemContext(
        { config, now: () => new Date() },
        { actor: { type: 'system', id: 'operator' }, correlationId: `operator-${crypto.randomUUID()}`, accountId },
      );
      await runCommand(store, accountStream(accountId), accountDecider, { type: 'EndUserSessions', user_id: userId, now: context.now }, context);
      return `The web app sessions of user ${userId} are ended.\n`;
    };
  },
};
