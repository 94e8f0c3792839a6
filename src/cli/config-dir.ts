import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where topup keeps its config, credentials and the offline sandbox's state. TOPUP_CONFIG_DIR wins. */
export function configDir(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform = process.platform): string {
  if (env.TOPUP_CONFIG_DIR) return env.TOPUP_CONFIG_DIR;
  if (platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'topup');
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'topup');
}

export const OFFLINE_STATE_FILE = 'sandbox-state.json';
