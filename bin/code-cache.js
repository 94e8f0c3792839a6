// The CLI's bundle compiled with a V8 code cache that the build made (scripts/code-cache.mjs), instead of from source on
// every run: compiling dist/cli's modules was the largest single cost of a command's start (issue 25). The cache is
// part of the package, written at build time and only read here; it sits in a folder named for the V8 version and
// processor it was made by, and V8 checks each file again (its version, flags and the source's length) and compiles
// from source when one does not fit. A missing, refused or unreadable cache costs a normal compile, never an error.
'use strict';
const { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, renameSync, writeFileSync } = require('node:fs');
// The CommonJS loader's Module class, which is what node:module exports, without loading node:module: that module
// also sets up the ES module loader and source maps, about 1.4 ms of every command that needs neither.
const Module = module.constructor;
const { basename, dirname, join, resolve, sep } = require('node:path');
const vm = require('node:vm');

/** Larger than any cache the build writes (the largest is under 1 MB); a bigger file is not ours. */
const MAX_CACHE_BYTES = 16 * 1024 * 1024;
/** Larger than any module of the bundle (the largest is under 1 MB); a bigger one is left to node's own loader. */
const MAX_SOURCE_BYTES = 64 * 1024 * 1024;
const INSTALLED = Symbol.for('topup.codeCache');

/**
 * The folder of caches for this V8 and processor, inside the built CLI's folder; `flags` names the V8 flags the CLI
 * itself turned on before the modules were compiled (see KNOWN_FLAGS), whose caches are kept apart.
 */
function cacheFolder(bundleFolder, flags = '') {
  return join(bundleFolder, 'code-cache', `v8-${process.versions.v8}-${process.arch}${flags === '' ? '' : `-${flags}`}`);
}

/**
 * V8's flags are part of what a cache must match, and they are the whole process's. The jq worker turns
 * --liftoff-only on (src/cli/io/jq-worker.ts), and every module compiled after that would refuse a cache made
 * without it: a --jq command compiled most of its modules from source. So the CLI turns such flags on through the
 * function useCodeCache leaves at globalThis[FLAGS], and the modules compiled after come from (and are recorded into)
 * a folder of their own for those flags.
 * The names are this list's only, so that the folder's name is never made of text from elsewhere.
 */
const KNOWN_FLAGS = new Map([['--liftoff-only', 'liftoff-only']]);

/** One cache file per module, named by its path inside the bundle's folder (`filename` is inside it). */
function cacheFileOf(folder, bundleFolder, filename) {
  return `${folder}${sep}${filename
    .slice(bundleFolder.length + 1)
    .split(sep)
    .join('~')}.v8`;
}

/**
 * Compiles the modules under `bundleFolder` with their cached code. Returns counts (for tests), or undefined when it
 * is off: TOPUP_DISABLE_CODE_CACHE=1, or no cache for this V8. `record` (the build only) writes each module's cache,
 * with every function the run compiled, when the process exits.
 */
function useCodeCache(bundleFolder, options = {}) {
  const record = options.record === true;
  if (!record && process.env.TOPUP_DISABLE_CODE_CACHE === '1') return undefined;
  const original = Module.prototype._compile;
  if (original[INSTALLED]) return original[INSTALLED];
  // The build records one run without the packs, so that each file has a cache of its own too (scripts/code-cache.mjs).
  packsEnabled = options.packs !== false;
  if (!record && !isFolder(cacheFolder(bundleFolder))) return undefined;
  // `packed`: modules run from a pack (scripts/cli-packs.mjs), whose code came with the pack's own compile.
  const counts = { accepted: 0, rejected: 0, missing: 0, packed: 0 };
  /** The flags turned on through globalThis[FLAGS] so far, as a folder's suffix ('' for none). */
  let flags = '';
  const compiled = [];
  const prefix = bundleFolder + sep;
  function compileWithCache(content, filename) {
    if (!filename.startsWith(prefix) || content.startsWith('#!')) return original.call(this, content, filename);
    return runWithCache(this, Module.wrap(content), filename);
  }
  /** Compiles a module's source, already in node's wrapper, with its cache, and runs it as node runs a module. */
  function runWithCache(module, wrapped, filename) {
    const folder = cacheFolder(bundleFolder, flags);
    const cacheFile = cacheFileOf(folder, bundleFolder, filename);
    const cachedData = readCache(cacheFile);
    const script = checksummed(
      () =>
        new vm.Script(wrapped, {
          filename,
          cachedData,
          importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
        }),
    );
    if (cachedData === undefined) counts.missing += 1;
    else if (script.cachedDataRejected) counts.rejected += 1;
    else counts.accepted += 1;
    if (record) compiled.push([script, cacheFile, flags]);
    const moduleFolder = dirname(filename);
    return script
      .runInThisContext({ displayErrors: true })
      .call(module.exports, module.exports, requireFor(module, moduleFolder, prefix), module, filename, moduleFolder);
  }
  compileWithCache[INSTALLED] = counts;
  Module.prototype._compile = compileWithCache;
  bundled = { prefix, run: runWithCache, counts };
  globalThis[FLAGS] = (flag) => {
    const name = KNOWN_FLAGS.get(flag);
    if (name === undefined) throw new Error(`code cache: no folder for the V8 flag ${flag}`);
    nodeV8().setFlagsFromString(flag);
    if (!flags.split('+').includes(name)) flags = flags === '' ? name : `${flags}+${name}`;
  };
  // A cache made now carries the flags as they are now: only the modules compiled under them can be recorded.
  if (record) process.once('exit', () => writeCaches(compiled.filter(([, , under]) => under === flags)));
  return counts;
}

/** The installed code cache's bundle folder (with a trailing separator) and runWithCache; undefined until then. */
let bundled;

/** Where useCodeCache leaves the function that turns a flag on, for the CLI's bundle (which cannot import this file). */
const FLAGS = Symbol.for('topup.codeCache.useV8Flags');

/**
 * Runs `work` with V8 checking the bytes of code caches. V8 checks a cache's version, flags and source length, but
 * its bytes only with --verify-snapshot-checksum: without it a cache damaged on disk is run as it is, and crashes the
 * process; with it, a damaged file is refused and its module compiled from source. Only around our own modules: on
 * for the whole run, it would refuse node's own cached modules too, made without it (about 10 ms more a command).
 * The flag is part of what a cache must match, so the build records with it on too.
 */
function checksummed(work) {
  const v8 = nodeV8();
  v8.setFlagsFromString('--verify-snapshot-checksum');
  try {
    return work();
  } finally {
    if (!CHECKSUMS_ASKED) v8.setFlagsFromString('--no-verify-snapshot-checksum');
  }
}

/** node:v8, required on first need (each module's compile asks for it) and kept. */
let v8Module;
function nodeV8() {
  return (v8Module ??= require('node:v8'));
}

/** node --verify-snapshot-checksum: the user's own choice for the whole run, left as it is (NODE_OPTIONS refuses it). */
const CHECKSUMS_ASKED = process.execArgv.some((option) => /^--verify[-_]snapshot[-_]checksum$/.test(option));

/**
 * The `require` a module's code (in `folder`) is given, as node makes it, except for the bundle's own modules: their
 * relative paths (`./chunk-….cjs`, `../../../chunk-….cjs`) name a file inside the bundle's folder (`prefix`), so they
 * are loaded by that name without node's search (a stat, a real path, the package scope per call: about a tenth of a
 * millisecond each, some 40 a command). Anything else goes through node's own `require`.
 */
function requireFor(module, folder, prefix) {
  const require = (id) => {
    if (isBundleRelative(id)) {
      const filename = bundleRelativePath(folder, id);
      if (filename.startsWith(prefix)) return requireBundled(module, filename, id);
    }
    return module.require(id);
  };
  require.resolve = (request, options) => Module._resolveFilename(request, module, false, options);
  require.resolve.paths = (request) => Module._resolveLookupPaths(request, module);
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}

/**
 * `resolve(folder, id)` for such a path, without node:path's general walk (its first calls were about a millisecond of
 * every command): `../` steps up, then the rest joined on. A rest with `.` or `..` inside, which esbuild never writes,
 * goes to resolve().
 */
function bundleRelativePath(folder, id) {
  let dir = folder;
  let rest = id;
  while (rest.startsWith('../')) {
    dir = dirname(dir);
    rest = rest.slice(3);
  }
  if (rest.startsWith('./')) rest = rest.slice(2);
  if (!isPlainPath(rest)) return resolve(folder, id);
  return `${dir}${sep}${sep === '/' ? rest : rest.split('/').join(sep)}`;
}

/** A `/`-separated path that stays where it starts: no empty part, no `.` or `..`. */
function isPlainPath(path) {
  return !path.split('/').some((part) => part === '' || part === '.' || part === '..');
}

/** A relative path to one of the bundle's CommonJS files, as esbuild writes them. */
function isBundleRelative(id) {
  return (id.startsWith('./') || id.startsWith('../')) && id.endsWith('.cjs');
}

/**
 * What node's `require` does for a file it found (Module._load): the cached module, or a new one cached before it
 * runs (a cycle gets its exports so far) and dropped again, from the cache and its parent's children, if it throws.
 * A file that is not there goes to node's own `require`, for its usual MODULE_NOT_FOUND. Unlike node's, the name is
 * not resolved to a real path: the build writes no links in the bundle, and the bundle's folder itself is found
 * from the launcher's real path.
 */
function requireBundled(parent, filename, id) {
  const cached = Module._cache[filename];
  if (cached !== undefined) {
    if (Array.isArray(parent.children) && !parent.children.includes(cached)) parent.children.push(cached);
    return cached.exports;
  }
  const child = new Module(filename, parent);
  Module._cache[filename] = child;
  try {
    const packed = packedModule(parent, filename);
    if (packed === undefined) loadBundled(child, filename);
    else runPacked(child, filename, packed);
  } catch (error) {
    delete Module._cache[filename];
    const at = Array.isArray(parent.children) ? parent.children.indexOf(child) : -1;
    if (at !== -1) parent.children.splice(at, 1);
    if (error?.code === 'ENOENT' && error.path === filename) return parent.require(id);
    throw error;
  }
  return child.exports;
}

/**
 * Packs (scripts/cli-packs.mjs): lazy files an offline command needs, written into one file each group, which is read
 * and compiled once instead of some thirty small files each on its own. dist/cli/packs/manifest.json names each
 * pack's entries; the first of them a command requires loads its pack, whose members are then run from it when they
 * are required, as their files would be. A member already loaded keeps its module. Without a manifest, or with a pack
 * that cannot be read or is not one, every file is loaded by itself, as before.
 */
const MAX_MANIFEST_BYTES = 64 * 1024;
/** Entry (a path inside the bundle, `/`-separated) to its pack's path; null once found missing or unreadable. */
let packManifest;
/** Off for a build's recording run that makes each file's own cache (useCodeCache's `packs: false`). */
let packsEnabled = true;
/** The loaded packs' members not run yet, by file name: each one's function, taken when it runs. */
const packedMembers = new Map();
/** The packs loaded (or found unusable), by path inside the bundle. */
const packsOpened = new Set();

/** The function that runs `filename` from its pack, loading that pack first if `filename` is one of its entries. */
function packedModule(parent, filename) {
  if (!packsEnabled) return undefined;
  if (!packedMembers.has(filename)) {
    // Only a lazy entry opens a pack: main.cjs and the chunks never make a command read the manifest.
    const path = bundlePathOf(filename);
    if (!path.startsWith('lazy/')) return undefined;
    const pack = packEntries()?.get(path);
    if (typeof pack !== 'string' || packsOpened.has(pack)) return undefined;
    packsOpened.add(pack);
    openPack(parent, pack, filename);
  }
  const member = packedMembers.get(filename);
  packedMembers.delete(filename);
  return member;
}

/** `filename`'s path inside the bundle, as the manifest writes it. */
function bundlePathOf(filename) {
  return filename.slice(bundled.prefix.length).split(sep).join('/');
}

/** The manifest's entries, read once (readRegularFile: a regular file, not through a link, of a bounded size); else null. */
function packEntries() {
  if (packManifest !== undefined) return packManifest;
  packManifest = null;
  const bytes = readRegularFile(`${bundled.prefix}packs${sep}manifest.json`, MAX_MANIFEST_BYTES, (size) => Buffer.alloc(size));
  if (bytes === undefined) return packManifest;
  try {
    const entries = JSON.parse(bytes.toString('utf8'));
    // Own properties only, read as data: a name like `__proto__` or `constructor` finds nothing.
    if (entries !== null && typeof entries === 'object' && !Array.isArray(entries)) packManifest = new Map(Object.entries(entries));
  } catch {
    // Not JSON: no packs, every file by itself.
  }
  return packManifest;
}

/**
 * Loads the pack at `pack` (inside the bundle) and keeps each of its members that has not run yet: `loading`, the
 * entry that opens it, is in the module cache already, as a module is while it loads.
 */
function openPack(parent, pack, loading) {
  if (!isPlainPath(pack) || !pack.endsWith('.cjs')) return;
  const filename = `${bundled.prefix}${pack.split('/').join(sep)}`;
  let members;
  try {
    members = requireBundled(parent, filename, filename);
  } catch {
    return;
  }
  if (members === null || typeof members !== 'object') return;
  for (const [member, run] of Object.entries(members)) {
    if (typeof run !== 'function' || !isPlainPath(member)) continue;
    const memberFile = `${bundled.prefix}${member.split('/').join(sep)}`;
    if (memberFile === loading || Module._cache[memberFile] === undefined) packedMembers.set(memberFile, run);
  }
}

/** Runs a pack's member as its file would run (see loadBundled). */
function runPacked(module, filename, run) {
  const folder = dirname(filename);
  module.filename = filename;
  module.paths = Module._nodeModulePaths(folder);
  run.call(module.exports, module.exports, requireFor(module, folder, bundled.prefix), module, filename, folder);
  module.loaded = true;
  bundled.counts.packed += 1;
}

/**
 * The launcher's require of the bundle's main module (`id`, relative to the launcher's `parent` module): by the
 * bundle's own loader while the code cache is in use, else by node's.
 */
function requireBundle(parent, id) {
  const filename = resolve(dirname(parent.filename), id);
  if (bundled === undefined || !isBundleRelative(id) || !filename.startsWith(bundled.prefix)) return parent.require(id);
  return requireBundled(parent, filename, id);
}

/**
 * What Module.prototype.load does for a module of the bundle, except that the file is read here. Node reads a module
 * in 8 KiB pieces into a string that grows by copying, copies that into V8, and the wrapper it is then compiled in
 * (Module.wrap) makes one more copy of the whole: about 2 MB of fresh memory for an offline command's 1 MB of
 * modules, on a machine where first touching a page of memory is what costs (about 13 µs a page here). Here the
 * file is read in one call, into bytes kept for the next module, behind the wrapper's text, and V8 copies it once.
 * A file that cannot be read this way is left to node's own load, which then says why.
 */
function loadBundled(module, filename) {
  const wrapped = readWrappedSource(filename);
  if (wrapped === undefined) return module.load(filename);
  module.filename = filename;
  module.paths = Module._nodeModulePaths(dirname(filename));
  bundled.run(module, wrapped, filename);
  module.loaded = true;
}

/**
 * Bytes kept from one read to the next, for a module's text and then its cache (the text is a string by the time its
 * cache is read): each read touches pages that an earlier one already did.
 */
let kept;

/** The kept bytes, grown to hold `length` first. */
function keptBytes(length) {
  if (kept === undefined || kept.length < length) kept = Buffer.allocUnsafeSlow(length);
  return kept;
}

/** Reads up to `length` bytes of `fd` into `buffer` at `offset`; how many it read (fewer if the file ended). */
function readInto(fd, buffer, offset, length) {
  let done = 0;
  while (done < length) {
    const read = readSync(fd, buffer, offset + done, length - done, null);
    if (read === 0) break;
    done += read;
  }
  return done;
}

/**
 * A bundle module's text in node's CommonJS wrapper, as Module.wrap(text) makes it: a regular file, not through a
 * symbolic link, of a bounded size, decoded as UTF-8 as node decodes a module. Undefined when any of that fails, or
 * for a file that starts with `#!` (node's own compile takes that line out).
 */
function readWrappedSource(filename) {
  let fd;
  try {
    fd = openSync(filename, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_SOURCE_BYTES) return undefined;
    const [head, tail] = Module.wrapper;
    const headBytes = Buffer.byteLength(head);
    const buffer = keptBytes(headBytes + stats.size + Buffer.byteLength(tail));
    buffer.write(head, 0);
    const textBytes = readInto(fd, buffer, headBytes, stats.size);
    if (textBytes >= 2 && buffer[headBytes] === 0x23 && buffer[headBytes + 1] === 0x21) return undefined;
    const end = headBytes + textBytes;
    return buffer.toString('utf8', 0, end + buffer.write(tail, end));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function isFolder(path) {
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | (constants.O_NOFOLLOW ?? 0));
    closeSync(fd);
    return true;
  } catch {
    return false;
  }
}

/**
 * A cache file's bytes: a regular file, not through a symbolic link, of a bounded size; else undefined. They are
 * kept bytes, good until the next read: V8 reads them while it compiles and keeps nothing of them.
 */
function readCache(path) {
  return readRegularFile(path, MAX_CACHE_BYTES, keptBytes);
}

/**
 * The bytes of the regular file at `path`, into the buffer `bufferOf(size)` gives: opened without following a link and
 * without blocking (a FIFO at its place is refused as no regular file, where opening it to read would wait for a
 * writer, and the command with it); undefined when it is none, empty, past `maxBytes`, or cannot be read.
 */
function readRegularFile(path, maxBytes, bufferOf) {
  let fd;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size === 0 || stats.size > maxBytes) return undefined;
    const buffer = bufferOf(stats.size);
    return buffer.subarray(0, readInto(fd, buffer, 0, stats.size));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Each module's cache, written beside its place and renamed over it: a reader sees a whole file or none. */
function writeCaches(compiled) {
  for (const [script, cacheFile] of compiled) {
    const folder = dirname(cacheFile);
    mkdirSync(folder, { recursive: true });
    const partial = join(folder, `.${basename(cacheFile)}.${process.pid}`);
    writeFileSync(
      partial,
      checksummed(() => script.createCachedData()),
      { flag: 'wx' },
    );
    renameSync(partial, cacheFile);
  }
}

module.exports = { useCodeCache, cacheFolder, requireBundle };
