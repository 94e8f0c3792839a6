import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
import type { RegisterScope } from '../../register-scope.js';
import { registerArticlesList } from './list.js';
import { registerArticlesShow } from './show.js';

/** `topup articles`: list and show. */
export function registerArticleCommands(program: Command, ctx: CliContext, scope: RegisterScope = 'all'): void {
  const articles = program
    .command('articles')
    .description("Read the shop's published articles (guides, news, promotions)")
    .addHelpText(
      'after',
      `
Examples:
  $ topup articles list
  $ topup articles show keeping-your-api-token-safe`,
    );
  if (scope === 'top') return;

  registerArticlesList(articles, ctx);
  registerArticlesShow(articles, ctx);
}
