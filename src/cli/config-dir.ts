import { join } from 'node:path';

/** Where topup keeps its config, credentials and the offline sandbox's state. TOPUP_CONFIG_DIR wins. */
export function configDir(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform = process.platform): string {
  if (env.TOPUP_CONFIG_DIR) return env.TOPUP_CONFIG_DIR;
  if (platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'topup');
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homeFolder(), '.config'), 'topup');
}

/**
 * The user's home folder when HOME is not set. node:os is loaded here, on first use, not with this module: every
 * command reads the config folder's name, and loading node:os cost each about 1.5 ms (issue 25); HOME is nearly always set.
 */
function homeFolder(): string {
  return process.getBuiltinModule('node:os').homedir();
}

export const OFFLINE_STATE_FILE = 'sandbox-state.json';
