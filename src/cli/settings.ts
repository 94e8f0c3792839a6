import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { FileTooLargeError, ensurePrivateDir, readIfExistsSync, replaceFile, UnsafeFileError, writeFailure } from '../safe-file.js';
import type { TokenMode } from '../contract/index.js';
import { isRecord, kindOf } from '../client/answer-data.js';
import { CliError, UsageError } from './errors.js';

/** Chat user ids travel as the X-Chat-User-ID header: one visible word of at most this many characters. */
export const CHAT_USER_ID_MAX_LENGTH = 64;

/** What a profile remembers besides its token. */
export interface ProfileSettings {
  base_url: string;
  mode?: TokenMode | undefined;
  username?: string | undefined;
  chat_user_id?: string | undefined;
  /** The zone of the server's times that name none (`YYYY-MM-DD HH:MM:SS`): an IANA name, or UTC. */
  time_zone?: string | undefined;
}

interface ConfigFile {
  current_profile?: string;
  profiles?: Record<string, ProfileSettings>;
  /**
   * Accessible mode (TOPUP_ACCESSIBLE): a person's setting, not a server's, so it sits beside the profiles and holds
   * whichever profile a run uses. Absent: off, unless the environment turns it on.
   */
  accessible?: boolean;
}

interface CredentialsFile {
  tokens?: Record<string, unknown>;
}

export const CONFIG_FILE = 'config.json';
export const CREDENTIALS_FILE = 'credentials.json';
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
/**
 * The most either settings file may hold: a few hundred profiles with the longest tokens `auth login` takes. Read at
 * every start, so a larger one (a file pasted over it, a log by mistake) is refused, never read into memory whole; and
 * never written, so that what topup writes it can read again.
 */
const MAX_SETTINGS_FILE_BYTES = 4 * 2 ** 20;
const SETTINGS_LIMIT_TEXT = `${MAX_SETTINGS_FILE_BYTES / 2 ** 20} MiB`;

/** Held while a command changes the settings (src/file-lock.ts): the owner's pid, in the settings folder. */
export const SETTINGS_LOCK_FILE = 'settings.lock';
/** How long a command waits for another's change of the settings: each holds the lock for a few milliseconds. */
const SETTINGS_LOCK_WAIT_MS = 10_000;

/**
 * Profiles in config.json and their tokens in credentials.json, both mode 0600 in a 0700 folder, read and replaced
 * whole through src/safe-file.ts: never through a link, never half-written. A hand-edit mistake is reported, never
 * answered by wiping every profile.
 */
export class Settings {
  private constructor(
    readonly dir: string,
    private config: ConfigFile,
    private credentials: CredentialsFile,
  ) {}

  static load(dir: string): Settings {
    return new Settings(dir, readJson<ConfigFile>(join(dir, CONFIG_FILE)), readJson<CredentialsFile>(join(dir, CREDENTIALS_FILE)));
  }

  get configPath(): string {
    return join(this.dir, CONFIG_FILE);
  }

  get credentialsPath(): string {
    return join(this.dir, CREDENTIALS_FILE);
  }

  currentProfile(): string | undefined {
    const name: unknown = this.config.current_profile;
    if (name === undefined || typeof name === 'string') return name;
    throw new CliError(`${this.configPath}: current_profile is ${kindOf(name)} instead of a profile name; fix it or delete it.`);
  }

  /**
   * The profile of that name, undefined when there is none. A hand-edit that left it something else (null, a text, a
   * profile without a base_url text) is said, naming the file and the profile, rather than read as a profile.
   */
  profile(name: string): ProfileSettings | undefined {
    const profiles = this.profiles();
    if (!Object.hasOwn(profiles, name)) return undefined;
    const profile = profiles[name];
    if (!isRecord(profile)) {
      throw new CliError(`${this.configPath}: profile '${name}' is ${kindOf(profile)} instead of an object; fix it or delete it.`);
    }
    const baseUrl = profile.base_url;
    if (typeof baseUrl !== 'string') {
      throw new CliError(
        baseUrl === undefined
          ? `${this.configPath}: profile '${name}' has no base_url; fix it or delete it.`
          : `${this.configPath}: the base_url of profile '${name}' is ${kindOf(baseUrl)} instead of a URL; fix it or delete it.`,
      );
    }
    return profile as unknown as ProfileSettings;
  }

  profileNames(): string[] {
    return Object.keys(this.profiles()).sort();
  }

  /** config.json's profiles, each as it was read (profile() checks one); none when the file has none. */
  private profiles(): Record<string, unknown> {
    const profiles: unknown = this.config.profiles;
    if (profiles === undefined) return {};
    if (isRecord(profiles)) return profiles;
    throw new CliError(`${this.configPath}: profiles is ${kindOf(profiles)} instead of an object; fix it or delete it.`);
  }

  /** The stored accessible-mode setting; undefined when it was never set (or was cleared). */
  accessible(): boolean | undefined {
    const value: unknown = this.config.accessible;
    if (value === undefined || typeof value === 'boolean') return value;
    // A hand-edit mistake: said, with the command that writes a good value, rather than guessed at.
    throw new CliError(`${this.configPath}: accessible must be true or false; set it with: topup config set accessible true`);
  }

  /** Stores accessible mode for every profile; undefined removes the key (back to the default, off). */
  async setAccessible(value: boolean | undefined): Promise<void> {
    await this.changing(async () => {
      const config: ConfigFile = { ...this.config };
      if (value === undefined) delete config.accessible;
      else config.accessible = value;
      await writeStore(this.dir, 'config', config);
      this.config = config;
    });
  }

  /** The profile's stored token; undefined when it has none. A hand-edit that left it something else is said. */
  token(name: string): string | undefined {
    const tokens = this.tokens();
    if (!Object.hasOwn(tokens, name)) return undefined;
    const token = tokens[name];
    if (typeof token === 'string' && token !== '') return token;
    throw new CliError(
      `${this.credentialsPath}: the token of profile '${name}' is ${token === '' ? 'empty' : kindOf(token)} instead of a token; log in again (topup auth login --profile ${name}) or fix the file.`,
    );
  }

  /** Every token credentials.json holds, whatever else it holds: for redaction, never an error. */
  storedTokens(): string[] {
    return tokenTexts(this.credentials.tokens);
  }

  /** storedTokens() of the settings in `dir`, read for that alone: none when the files cannot be read. */
  static storedTokensIn(dir: string): string[] {
    try {
      return tokenTexts(readJson<CredentialsFile>(join(dir, CREDENTIALS_FILE)).tokens);
    } catch {
      return [];
    }
  }

  /** credentials.json's tokens, each as it was read (token() checks one); none when the file has none. */
  private tokens(): Record<string, unknown> {
    const tokens: unknown = this.credentials.tokens;
    if (tokens === undefined) return {};
    if (isRecord(tokens)) return tokens;
    throw new CliError(`${this.credentialsPath}: tokens is ${kindOf(tokens)} instead of an object; fix it or delete it.`);
  }

  /**
   * Runs `change` on the settings as they are on disk now, with the folder's lock held. A command reads both files
   * when it starts, and another topup process may have changed them since (twenty `auth login`s at once, a script's
   * `config set` beside a login): writing back what this one read would lose the others' changes in silence, and
   * could pair one login's token with another's profile. So a change waits for the lock, reads the files again, and
   * writes before it lets go. Readers take no lock: each file is replaced whole, never seen half-written.
   */
  private async changing<T>(change: () => Promise<T>): Promise<T> {
    const release = await guarded(this.dir, async () => {
      await ensurePrivateDir(this.dir);
      // Loaded here: a command that only reads its settings never takes the lock.
      const { lockFile } = await import('../file-lock.js');
      return lockFile(join(this.dir, SETTINGS_LOCK_FILE), {
        waitMs: SETTINGS_LOCK_WAIT_MS,
        busy: (owner) =>
          new CliError(
            owner === null
              ? `The settings lock ${join(this.dir, SETTINGS_LOCK_FILE)} names no process (topup never leaves one so): if no other topup command is running, remove it.`
              : `Another topup process${owner === undefined ? '' : ` (${owner.pid})`} kept the settings in ${this.dir} locked for ${SETTINGS_LOCK_WAIT_MS / 1000} s; try again.`,
          ),
      });
    });
    try {
      this.config = readJson<ConfigFile>(this.configPath);
      this.credentials = readJson<CredentialsFile>(this.credentialsPath);
      return await change();
    } finally {
      await release();
    }
  }

  /** True when credentials.json can be read by others than its owner. */
  credentialsExposed(): boolean {
    return openToOthers(this.credentialsPath);
  }

  /** True when credentials.json is there and its folder is open to others than its owner (topup makes it 0700). */
  folderExposed(): boolean {
    return openToOthers(this.dir) && lstatSync(this.credentialsPath, { throwIfNoEntry: false }) !== undefined;
  }

  /**
   * The config folder or config.json when other users can write to it (group or world write): whoever can change a
   * profile's base_url can have its stored token sent to their own server. Undefined when neither can be, or there is
   * no folder yet.
   */
  changeableByOthers(): string | undefined {
    return [this.dir, this.configPath].find((path) => writableByOthers(path));
  }

  async saveProfile(name: string, profile: ProfileSettings, token: string | undefined, makeCurrent: boolean): Promise<void> {
    checkProfileName(name);
    await this.changing(() => this.writeProfile(name, profile, token, makeCurrent));
  }

  /** saveProfile's writes, with the lock held. */
  private async writeProfile(name: string, profile: ProfileSettings, token: string | undefined, makeCurrent: boolean): Promise<void> {
    const profiles = { ...(this.profiles() as ConfigFile['profiles']), [name]: profile };
    const config: ConfigFile = { ...this.config, profiles, ...(makeCurrent ? { current_profile: name } : {}) };
    if (token !== undefined) {
      // Token first: a profile must never point at a token that was not written.
      const credentials = { ...this.credentials, tokens: { ...this.tokens(), [name]: token } };
      await writeStore(this.dir, 'credentials', credentials);
      this.credentials = credentials;
    }
    await writeStore(this.dir, 'config', config);
    this.config = config;
  }

  async updateProfile(name: string, change: Partial<ProfileSettings>): Promise<void> {
    await this.changing(async () => {
      const current = this.profile(name);
      if (current === undefined) throw noSuchProfile(name, this.profileNames());
      await this.writeProfile(name, { ...current, ...change }, undefined, false);
    });
  }

  async setCurrentProfile(name: string): Promise<void> {
    await this.changing(async () => {
      if (this.profile(name) === undefined) throw noSuchProfile(name, this.profileNames());
      const config = { ...this.config, current_profile: name };
      await writeStore(this.dir, 'config', config);
      this.config = config;
    });
  }

  /** Forgets the profile and its token. Returns whether there was anything to forget. */
  async removeProfile(name: string): Promise<boolean> {
    return this.changing(async () => {
      // Whatever the profile and its token hold: broken ones are forgotten too.
      const hadProfile = Object.hasOwn(this.profiles(), name);
      const hadToken = Object.hasOwn(this.tokens(), name);
      if (hadToken) {
        const tokens = { ...this.tokens() };
        delete tokens[name];
        const credentials = { ...this.credentials, tokens };
        await writeStore(this.dir, 'credentials', credentials);
        this.credentials = credentials;
      }
      if (hadProfile) {
        const profiles = { ...(this.profiles() as ConfigFile['profiles']) };
        delete profiles[name];
        const config: ConfigFile = { ...this.config, profiles };
        if (config.current_profile === name) delete config.current_profile;
        await writeStore(this.dir, 'config', config);
        this.config = config;
      }
      return hadProfile || hadToken;
    });
  }
}

/** Whether the group or others have any of `bits` on `path` (not through a link); false when it cannot be looked at. */
function othersHave(path: string, bits: number): boolean {
  try {
    return (lstatSync(path).mode & bits) !== 0;
  } catch {
    return false;
  }
}

/** Whether the group or others have any permission on `path`. */
const openToOthers = (path: string) => othersHave(path, 0o077);
/** Whether the group or others may write to `path`. */
const writableByOthers = (path: string) => othersHave(path, 0o022);

function tokenTexts(tokens: unknown): string[] {
  return isRecord(tokens) ? Object.values(tokens).filter((token): token is string => typeof token === 'string' && token !== '') : [];
}

/** The profiles there are, as a refusal lists them. */
export const listedProfiles = (names: readonly string[]) =>
  names.length === 0 ? 'there are no profiles yet' : `profiles: ${names.join(', ')}`;

/**
 * A profile name that names none, said one way by every command (a usage error, exit 2, as docs/scripting.md says):
 * where the name came from when that is known, the profiles there are, and how to make this one.
 */
export function noSuchProfile(name: string, known: readonly string[], from?: string): UsageError {
  const where = from === undefined ? '' : `from ${from}; `;
  return new UsageError(
    `No profile is named '${name}' (${where}${listedProfiles(known)}); log in with \`topup auth login --profile ${name}\`.`,
  );
}

export function checkProfileName(name: string): void {
  if (!PROFILE_NAME.test(name)) throw new UsageError(`'${name}' is not a valid profile name: use letters, digits, - and _ (up to 32).`);
}

function readJson<T extends object>(file: string): T {
  let text: string | undefined;
  try {
    text = readIfExistsSync(file, { maxBytes: MAX_SETTINGS_FILE_BYTES })?.toString('utf8');
  } catch (error) {
    if (error instanceof UnsafeFileError) throw new CliError(error.message);
    if (error instanceof FileTooLargeError)
      throw new CliError(`${file} is larger than ${SETTINGS_LIMIT_TEXT}, more than a settings file can be; fix it or delete it.`);
    throw new CliError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  if (text === undefined) return {} as T;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not valid JSON; fix it or delete it.`);
  }
  if (!isRecord(value)) throw new CliError(`${file} holds ${kindOf(value)} instead of an object; fix it or delete it.`);
  return value as T;
}

async function writeStore(dir: string, name: 'config' | 'credentials', contents: object): Promise<void> {
  const file = join(dir, name === 'config' ? CONFIG_FILE : CREDENTIALS_FILE);
  const text = `${JSON.stringify(contents, null, '\t')}\n`;
  if (Buffer.byteLength(text) > MAX_SETTINGS_FILE_BYTES)
    throw new CliError(
      `Cannot save ${file}: it would be larger than ${SETTINGS_LIMIT_TEXT}, the most a settings file can be; remove profiles you no longer use (topup auth logout --profile NAME).`,
    );
  await guarded(file, () => replaceFile(file, text));
}

/** A file operation on the settings, its failures as one sentence: a refused link or a system error, naming `path`. */
async function guarded<T>(path: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(writeFailure(path, error));
  }
}
