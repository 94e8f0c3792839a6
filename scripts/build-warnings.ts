import { formatMessages, type Plugin } from 'esbuild';
import type { Options } from 'tsup';

/**
 * The build runs `tsup --silent`: no banner of every chunk and its size before the first useful line of the README's
 * first command. tsup's --silent drops esbuild's warnings too; this plugin prints them anyway, since those matter.
 */
export function buildWarnings(): Plugin {
  return {
    name: 'build-warnings',
    setup(build) {
      build.onEnd(async (result) => {
        if (result.warnings.length === 0) return;
        const lines = await formatMessages(result.warnings, { kind: 'warning', color: process.stderr.isTTY });
        process.stderr.write(lines.join(''));
      });
    },
  };
}

/** Every config of a tsup build with buildWarnings() among its plugins. */
export function withBuildWarnings(configs: Options[]): Options[] {
  return configs.map((config) => ({ ...config, esbuildPlugins: [...(config.esbuildPlugins ?? []), buildWarnings()] }));
}
