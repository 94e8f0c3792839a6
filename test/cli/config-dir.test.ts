import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir } from '../../src/cli/config-dir.js';

describe('the config folder', () => {
  it('TOPUP_CONFIG_DIR wins, then APPDATA on Windows, then XDG_CONFIG_HOME, then HOME', () => {
    expect(configDir({ TOPUP_CONFIG_DIR: '/x/topup', XDG_CONFIG_HOME: '/xdg', HOME: '/home/a' }, 'linux')).toBe('/x/topup');
    expect(configDir({ APPDATA: 'C:\\Users\\a\\AppData', HOME: '/home/a' }, 'win32')).toBe(join('C:\\Users\\a\\AppData', 'topup'));
    expect(configDir({ APPDATA: '/appdata', XDG_CONFIG_HOME: '/xdg', HOME: '/home/a' }, 'linux')).toBe(join('/xdg', 'topup'));
    expect(configDir({ HOME: '/home/a' }, 'linux')).toBe(join('/home/a', '.config', 'topup'));
  });

  it('without HOME in the environment it is given (or with it empty), the folder node:os gives as home', () => {
    expect(configDir({}, 'linux')).toBe(join(homedir(), '.config', 'topup'));
    expect(configDir({ HOME: '' }, 'linux')).toBe(join(homedir(), '.config', 'topup'));
  });
});
