#!/usr/bin/env node
const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;
"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __esm = (fn, res, err) => function __init() {
  if (err) throw err[0];
  try {
    return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
  } catch (e) {
    throw err = [e], e;
  }
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// src/codec.ts
function idCodec(spelling) {
  if (spelling === void 0 || spelling === "number") return { encode: (n) => n, decode: (id) => decodeNumber(id) };
  if (spelling === "string") return { encode: (n) => String(n), decode: (id) => decodeNumber(id) };
  return spelling;
}
function decodeNumber(id) {
  const n = typeof id === "number" ? id : typeof id === "string" && /^-?\d+$/.test(id) ? Number(id) : NaN;
  if (!Number.isFinite(n)) throw new Error(`cannot read a turn id from ${JSON.stringify(id)}: declare codec.ids with a decode()`);
  return n;
}
var ID_FIELDS, Codec;
var init_codec = __esm({
  "src/codec.ts"() {
    "use strict";
    ID_FIELDS = /* @__PURE__ */ new Set(["turnId", "call"]);
    Codec = class {
      constructor(c = {}) {
        this.c = c;
        this.ids = idCodec(c.ids);
      }
      c;
      ids;
      /** Rename fields and spell ids of one flat record. */
      shape(record) {
        const out = {};
        const fields = this.c.fields ?? {};
        for (const k of Object.keys(record)) {
          const v = record[k];
          out[fields[k] ?? k] = ID_FIELDS.has(k) && typeof v === "number" ? this.ids.encode(v) : v;
        }
        return out;
      }
      /** The socket frame (a string) for one event. */
      frame(event) {
        const shaped = this.shape(event);
        const typeField = this.c.fields?.type ?? "type";
        shaped[typeField] = this.c.eventNames?.[event.type] ?? event.type;
        const frame = this.c.event !== void 0 ? this.c.event(shaped) : shaped;
        return typeof frame === "string" ? frame : JSON.stringify(frame);
      }
      /** The history GET's body. Tool rows get their call's number (a result answers the call before it). */
      history(response) {
        const calls = /* @__PURE__ */ new Map();
        const chunks = response.chunks.map((chunk) => {
          const c = { ...chunk };
          if (chunk.role === "tool-call") calls.set(chunk.turnId, (calls.get(chunk.turnId) ?? 0) + 1);
          if (chunk.role === "tool-call" || chunk.role === "tool-result") c.call = calls.get(chunk.turnId) ?? 0;
          return this.c.chunk !== void 0 ? this.c.chunk(c, this.ids) : this.shape(c);
        });
        const writtenTurns = response.writtenTurns.map((t) => this.ids.encode(t));
        const body = { requestId: response.requestId, snapshotSeq: response.snapshotSeq, chunks, writtenTurns };
        return this.c.history !== void 0 ? this.c.history(body) : body;
      }
      postRequest(body) {
        if (this.c.postRequest !== void 0) return this.c.postRequest(body);
        const b = body ?? {};
        const id = b.id ?? b.messageId ?? b.clientMessageId ?? b.clientId;
        const text = b.text ?? b.content ?? b.message;
        if (typeof text !== "string") {
          throw new Error(`cannot read the message text from the POST body ${JSON.stringify(body)}: declare codec.postRequest`);
        }
        return { id: id === void 0 || id === null ? void 0 : String(id), text };
      }
      postResponse(response, messageId) {
        if (this.c.postResponse !== void 0) return this.c.postResponse(response, messageId, this.ids);
        return response.outcome === "started" ? this.shape({ messageId, status: "started", turnId: response.turn_id }) : this.shape({ messageId, status: "queued" });
      }
    };
  }
});

// src/xhr.ts
function xmlHttpRequestOver(fetch2) {
  return class XMLHttpRequest extends EventTarget {
    static UNSENT = 0;
    static OPENED = 1;
    static HEADERS_RECEIVED = 2;
    static LOADING = 3;
    static DONE = 4;
    UNSENT = 0;
    OPENED = 1;
    HEADERS_RECEIVED = 2;
    LOADING = 3;
    DONE = 4;
    readyState = STATES.UNSENT;
    status = 0;
    statusText = "";
    responseType = "";
    responseText = "";
    response = "";
    responseURL = "";
    timeout = 0;
    withCredentials = false;
    onreadystatechange = null;
    onload = null;
    onerror = null;
    onloadend = null;
    onabort = null;
    method = "GET";
    url = "";
    headers = {};
    answer = null;
    aborted = false;
    open(method, url, async = true) {
      if (async === false) {
        throw new Error("reconcile-sim: a synchronous XMLHttpRequest cannot be answered (the harness answers on this thread); make it asynchronous");
      }
      this.method = method.toUpperCase();
      this.url = String(url);
      this.headers = {};
      this.aborted = false;
      this.change(STATES.OPENED);
    }
    setRequestHeader(name, value) {
      this.headers[name] = value;
    }
    send(body) {
      if (this.readyState !== STATES.OPENED) throw new Error("reconcile-sim: XMLHttpRequest.send() before open()");
      const init = { method: this.method, headers: this.headers };
      if (body !== void 0 && body !== null && this.method !== "GET" && this.method !== "HEAD") init.body = body;
      fetch2()(this.url, init).then(
        async (res) => {
          const text = await res.text();
          if (this.aborted) return;
          this.answer = res;
          this.status = res.status;
          this.statusText = res.statusText;
          this.responseURL = res.url;
          this.change(STATES.HEADERS_RECEIVED);
          this.responseText = text;
          this.response = this.responseType === "json" ? text === "" ? null : JSON.parse(text) : text;
          this.change(STATES.DONE);
          this.fire("load");
          this.fire("loadend");
        },
        () => {
          if (this.aborted) return;
          this.status = 0;
          this.change(STATES.DONE);
          this.fire("error");
          this.fire("loadend");
        }
      );
    }
    abort() {
      this.aborted = true;
      this.readyState = STATES.UNSENT;
      this.fire("abort");
    }
    getResponseHeader(name) {
      return this.answer?.headers.get(name) ?? null;
    }
    getAllResponseHeaders() {
      if (this.answer === null) return "";
      let all = "";
      this.answer.headers.forEach((value, name) => all += `${name}: ${value}\r
`);
      return all;
    }
    change(state) {
      this.readyState = state;
      this.fire("readystatechange");
    }
    fire(type) {
      const event = new Event(type);
      const handler = this[`on${type}`];
      if (typeof handler === "function") handler.call(this, event);
      this.dispatchEvent(event);
    }
  };
}
var STATES;
var init_xhr = __esm({
  "src/xhr.ts"() {
    "use strict";
    STATES = { UNSENT: 0, OPENED: 1, HEADERS_RECEIVED: 2, LOADING: 3, DONE: 4 };
  }
});

// ../../node_modules/is-node-process/lib/index.mjs
function isNodeProcess() {
  if (typeof navigator !== "undefined" && navigator.product === "ReactNative") {
    return true;
  }
  if (typeof process !== "undefined") {
    const type = process.type;
    if (type === "renderer" || type === "worker") {
      return false;
    }
    return !!(process.versions && process.versions.node);
  }
  return false;
}
var init_lib = __esm({
  "../../node_modules/is-node-process/lib/index.mjs"() {
  }
});

// ../../node_modules/outvariant/lib/index.mjs
function serializePositional(positional, flag) {
  switch (flag) {
    case "s":
      return positional;
    case "d":
    case "i":
      return Number(positional);
    case "j":
      return JSON.stringify(positional);
    case "o": {
      if (typeof positional === "string") {
        return positional;
      }
      const json = JSON.stringify(positional);
      if (json === "{}" || json === "[]" || /^\[object .+?\]$/.test(json)) {
        return positional;
      }
      return json;
    }
  }
}
function format(message, ...positionals) {
  if (positionals.length === 0) {
    return message;
  }
  let positionalIndex = 0;
  let formattedMessage = message.replace(
    POSITIONALS_EXP,
    (match2, isEscaped, _, flag) => {
      const positional = positionals[positionalIndex];
      const value = serializePositional(positional, flag);
      if (!isEscaped) {
        positionalIndex++;
        return value;
      }
      return match2;
    }
  );
  if (positionalIndex < positionals.length) {
    formattedMessage += ` ${positionals.slice(positionalIndex).join(" ")}`;
  }
  formattedMessage = formattedMessage.replace(/%{2,2}/g, "%");
  return formattedMessage;
}
function cleanErrorStack(error2) {
  if (!error2.stack) {
    return;
  }
  const nextStack = error2.stack.split("\n");
  nextStack.splice(1, STACK_FRAMES_TO_IGNORE);
  error2.stack = nextStack.join("\n");
}
var POSITIONALS_EXP, STACK_FRAMES_TO_IGNORE, InvariantError, invariant;
var init_lib2 = __esm({
  "../../node_modules/outvariant/lib/index.mjs"() {
    POSITIONALS_EXP = /(%?)(%([sdijo]))/g;
    STACK_FRAMES_TO_IGNORE = 2;
    InvariantError = class extends Error {
      constructor(message, ...positionals) {
        super(message);
        this.message = message;
        this.name = "Invariant Violation";
        this.message = format(message, ...positionals);
        cleanErrorStack(this);
      }
    };
    invariant = (predicate, message, ...positionals) => {
      if (!predicate) {
        throw new InvariantError(message, ...positionals);
      }
    };
    invariant.as = (ErrorConstructor, predicate, message, ...positionals) => {
      if (!predicate) {
        const formatMessage = positionals.length === 0 ? message : format(message, ...positionals);
        let error2;
        try {
          error2 = Reflect.construct(ErrorConstructor, [
            formatMessage
          ]);
        } catch (err) {
          error2 = ErrorConstructor(formatMessage);
        }
        throw error2;
      }
    };
  }
});

// ../../node_modules/@open-draft/logger/lib/index.mjs
function yellow(text) {
  return `\x1B[33m${text}\x1B[0m`;
}
function blue(text) {
  return `\x1B[34m${text}\x1B[0m`;
}
function gray(text) {
  return `\x1B[90m${text}\x1B[0m`;
}
function red(text) {
  return `\x1B[31m${text}\x1B[0m`;
}
function green(text) {
  return `\x1B[32m${text}\x1B[0m`;
}
function log(message, ...positionals) {
  if (IS_NODE) {
    process.stdout.write(format(message, ...positionals) + "\n");
    return;
  }
  console.log(message, ...positionals);
}
function warn(message, ...positionals) {
  if (IS_NODE) {
    process.stderr.write(format(message, ...positionals) + "\n");
    return;
  }
  console.warn(message, ...positionals);
}
function error(message, ...positionals) {
  if (IS_NODE) {
    process.stderr.write(format(message, ...positionals) + "\n");
    return;
  }
  console.error(message, ...positionals);
}
function getVariable(variableName) {
  if (IS_NODE) {
    return process.env[variableName];
  }
  return globalThis[variableName]?.toString();
}
function isDefinedAndNotEquals(value, expected) {
  return value !== void 0 && value !== expected;
}
function serializeInput(message) {
  if (typeof message === "undefined") {
    return "undefined";
  }
  if (message === null) {
    return "null";
  }
  if (typeof message === "string") {
    return message;
  }
  if (typeof message === "object") {
    return JSON.stringify(message);
  }
  return message.toString();
}
var __defProp2, __export2, colors_exports, IS_NODE, Logger, PerformanceEntry, noop;
var init_lib3 = __esm({
  "../../node_modules/@open-draft/logger/lib/index.mjs"() {
    init_lib();
    init_lib2();
    __defProp2 = Object.defineProperty;
    __export2 = (target, all) => {
      for (var name in all)
        __defProp2(target, name, { get: all[name], enumerable: true });
    };
    colors_exports = {};
    __export2(colors_exports, {
      blue: () => blue,
      gray: () => gray,
      green: () => green,
      red: () => red,
      yellow: () => yellow
    });
    IS_NODE = isNodeProcess();
    Logger = class {
      constructor(name) {
        this.name = name;
        this.prefix = `[${this.name}]`;
        const LOGGER_NAME = getVariable("DEBUG");
        const LOGGER_LEVEL = getVariable("LOG_LEVEL");
        const isLoggingEnabled = LOGGER_NAME === "1" || LOGGER_NAME === "true" || typeof LOGGER_NAME !== "undefined" && this.name.startsWith(LOGGER_NAME);
        if (isLoggingEnabled) {
          this.debug = isDefinedAndNotEquals(LOGGER_LEVEL, "debug") ? noop : this.debug;
          this.info = isDefinedAndNotEquals(LOGGER_LEVEL, "info") ? noop : this.info;
          this.success = isDefinedAndNotEquals(LOGGER_LEVEL, "success") ? noop : this.success;
          this.warning = isDefinedAndNotEquals(LOGGER_LEVEL, "warning") ? noop : this.warning;
          this.error = isDefinedAndNotEquals(LOGGER_LEVEL, "error") ? noop : this.error;
        } else {
          this.info = noop;
          this.success = noop;
          this.warning = noop;
          this.error = noop;
          this.only = noop;
        }
      }
      prefix;
      extend(domain) {
        return new Logger(`${this.name}:${domain}`);
      }
      /**
       * Print a debug message.
       * @example
       * logger.debug('no duplicates found, creating a document...')
       */
      debug(message, ...positionals) {
        this.logEntry({
          level: "debug",
          message: gray(message),
          positionals,
          prefix: this.prefix,
          colors: {
            prefix: "gray"
          }
        });
      }
      /**
       * Print an info message.
       * @example
       * logger.info('start parsing...')
       */
      info(message, ...positionals) {
        this.logEntry({
          level: "info",
          message,
          positionals,
          prefix: this.prefix,
          colors: {
            prefix: "blue"
          }
        });
        const performance2 = new PerformanceEntry();
        return (message2, ...positionals2) => {
          performance2.measure();
          this.logEntry({
            level: "info",
            message: `${message2} ${gray(`${performance2.deltaTime}ms`)}`,
            positionals: positionals2,
            prefix: this.prefix,
            colors: {
              prefix: "blue"
            }
          });
        };
      }
      /**
       * Print a success message.
       * @example
       * logger.success('successfully created document')
       */
      success(message, ...positionals) {
        this.logEntry({
          level: "info",
          message,
          positionals,
          prefix: `\u2714 ${this.prefix}`,
          colors: {
            timestamp: "green",
            prefix: "green"
          }
        });
      }
      /**
       * Print a warning.
       * @example
       * logger.warning('found legacy document format')
       */
      warning(message, ...positionals) {
        this.logEntry({
          level: "warning",
          message,
          positionals,
          prefix: `\u26A0 ${this.prefix}`,
          colors: {
            timestamp: "yellow",
            prefix: "yellow"
          }
        });
      }
      /**
       * Print an error message.
       * @example
       * logger.error('something went wrong')
       */
      error(message, ...positionals) {
        this.logEntry({
          level: "error",
          message,
          positionals,
          prefix: `\u2716 ${this.prefix}`,
          colors: {
            timestamp: "red",
            prefix: "red"
          }
        });
      }
      /**
       * Execute the given callback only when the logging is enabled.
       * This is skipped in its entirety and has no runtime cost otherwise.
       * This executes regardless of the log level.
       * @example
       * logger.only(() => {
       *   logger.info('additional info')
       * })
       */
      only(callback) {
        callback();
      }
      createEntry(level, message) {
        return {
          timestamp: /* @__PURE__ */ new Date(),
          level,
          message
        };
      }
      logEntry(args) {
        const {
          level,
          message,
          prefix,
          colors: customColors,
          positionals = []
        } = args;
        const entry = this.createEntry(level, message);
        const timestampColor = customColors?.timestamp || "gray";
        const prefixColor = customColors?.prefix || "gray";
        const colorize = {
          timestamp: colors_exports[timestampColor],
          prefix: colors_exports[prefixColor]
        };
        const write2 = this.getWriter(level);
        write2(
          [colorize.timestamp(this.formatTimestamp(entry.timestamp))].concat(prefix != null ? colorize.prefix(prefix) : []).concat(serializeInput(message)).join(" "),
          ...positionals.map(serializeInput)
        );
      }
      formatTimestamp(timestamp) {
        return `${timestamp.toLocaleTimeString(
          "en-GB"
        )}:${timestamp.getMilliseconds()}`;
      }
      getWriter(level) {
        switch (level) {
          case "debug":
          case "success":
          case "info": {
            return log;
          }
          case "warning": {
            return warn;
          }
          case "error": {
            return error;
          }
        }
      }
    };
    PerformanceEntry = class {
      startTime;
      endTime;
      deltaTime;
      constructor() {
        this.startTime = performance.now();
      }
      measure() {
        this.endTime = performance.now();
        const deltaTime = this.endTime - this.startTime;
        this.deltaTime = deltaTime.toFixed(2);
      }
    };
    noop = () => void 0;
  }
});

// ../../node_modules/strict-event-emitter/lib/index.mjs
var MemoryLeakError, _Emitter, Emitter;
var init_lib4 = __esm({
  "../../node_modules/strict-event-emitter/lib/index.mjs"() {
    MemoryLeakError = class extends Error {
      constructor(emitter, type, count) {
        super(
          `Possible EventEmitter memory leak detected. ${count} ${type.toString()} listeners added. Use emitter.setMaxListeners() to increase limit`
        );
        this.emitter = emitter;
        this.type = type;
        this.count = count;
        this.name = "MaxListenersExceededWarning";
      }
    };
    _Emitter = class {
      static listenerCount(emitter, eventName) {
        return emitter.listenerCount(eventName);
      }
      constructor() {
        this.events = /* @__PURE__ */ new Map();
        this.maxListeners = _Emitter.defaultMaxListeners;
        this.hasWarnedAboutPotentialMemoryLeak = false;
      }
      _emitInternalEvent(internalEventName, eventName, listener) {
        this.emit(
          internalEventName,
          ...[eventName, listener]
        );
      }
      _getListeners(eventName) {
        return Array.prototype.concat.apply([], this.events.get(eventName)) || [];
      }
      _removeListener(listeners, listener) {
        const index = listeners.indexOf(listener);
        if (index > -1) {
          listeners.splice(index, 1);
        }
        return [];
      }
      _wrapOnceListener(eventName, listener) {
        const onceListener = (...data) => {
          this.removeListener(eventName, onceListener);
          return listener.apply(this, data);
        };
        Object.defineProperty(onceListener, "name", { value: listener.name });
        return onceListener;
      }
      setMaxListeners(maxListeners) {
        this.maxListeners = maxListeners;
        return this;
      }
      /**
       * Returns the current max listener value for the `Emitter` which is
       * either set by `emitter.setMaxListeners(n)` or defaults to
       * `Emitter.defaultMaxListeners`.
       */
      getMaxListeners() {
        return this.maxListeners;
      }
      /**
       * Returns an array listing the events for which the emitter has registered listeners.
       * The values in the array will be strings or Symbols.
       */
      eventNames() {
        return Array.from(this.events.keys());
      }
      /**
       * Synchronously calls each of the listeners registered for the event named `eventName`,
       * in the order they were registered, passing the supplied arguments to each.
       * Returns `true` if the event has listeners, `false` otherwise.
       *
       * @example
       * const emitter = new Emitter<{ hello: [string] }>()
       * emitter.emit('hello', 'John')
       */
      emit(eventName, ...data) {
        const listeners = this._getListeners(eventName);
        listeners.forEach((listener) => {
          listener.apply(this, data);
        });
        return listeners.length > 0;
      }
      addListener(eventName, listener) {
        this._emitInternalEvent("newListener", eventName, listener);
        const nextListeners = this._getListeners(eventName).concat(listener);
        this.events.set(eventName, nextListeners);
        if (this.maxListeners > 0 && this.listenerCount(eventName) > this.maxListeners && !this.hasWarnedAboutPotentialMemoryLeak) {
          this.hasWarnedAboutPotentialMemoryLeak = true;
          const memoryLeakWarning = new MemoryLeakError(
            this,
            eventName,
            this.listenerCount(eventName)
          );
          console.warn(memoryLeakWarning);
        }
        return this;
      }
      on(eventName, listener) {
        return this.addListener(eventName, listener);
      }
      once(eventName, listener) {
        return this.addListener(
          eventName,
          this._wrapOnceListener(eventName, listener)
        );
      }
      prependListener(eventName, listener) {
        const listeners = this._getListeners(eventName);
        if (listeners.length > 0) {
          const nextListeners = [listener].concat(listeners);
          this.events.set(eventName, nextListeners);
        } else {
          this.events.set(eventName, listeners.concat(listener));
        }
        return this;
      }
      prependOnceListener(eventName, listener) {
        return this.prependListener(
          eventName,
          this._wrapOnceListener(eventName, listener)
        );
      }
      removeListener(eventName, listener) {
        const listeners = this._getListeners(eventName);
        if (listeners.length > 0) {
          this._removeListener(listeners, listener);
          this.events.set(eventName, listeners);
          this._emitInternalEvent("removeListener", eventName, listener);
        }
        return this;
      }
      /**
       * Alias for `emitter.removeListener()`.
       *
       * @example
       * emitter.off('hello', listener)
       */
      off(eventName, listener) {
        return this.removeListener(eventName, listener);
      }
      removeAllListeners(eventName) {
        if (eventName) {
          this.events.delete(eventName);
        } else {
          this.events.clear();
        }
        return this;
      }
      /**
       * Returns a copy of the array of listeners for the event named `eventName`.
       */
      listeners(eventName) {
        return Array.from(this._getListeners(eventName));
      }
      /**
       * Returns the number of listeners listening to the event named `eventName`.
       */
      listenerCount(eventName) {
        return this._getListeners(eventName).length;
      }
      rawListeners(eventName) {
        return this.listeners(eventName);
      }
    };
    Emitter = _Emitter;
    Emitter.defaultMaxListeners = 10;
  }
});

// ../../node_modules/@open-draft/deferred-promise/build/index.mjs
function createDeferredExecutor() {
  const executor = (resolve2, reject) => {
    executor.state = "pending";
    executor.resolve = (data) => {
      if (executor.state !== "pending") {
        return;
      }
      executor.result = data;
      const onFulfilled = (value) => {
        executor.state = "fulfilled";
        return value;
      };
      return resolve2(
        data instanceof Promise ? data : Promise.resolve(data).then(onFulfilled)
      );
    };
    executor.reject = (reason) => {
      if (executor.state !== "pending") {
        return;
      }
      queueMicrotask(() => {
        executor.state = "rejected";
      });
      return reject(executor.rejectionReason = reason);
    };
  };
  return executor;
}
var DeferredPromise;
var init_build = __esm({
  "../../node_modules/@open-draft/deferred-promise/build/index.mjs"() {
    DeferredPromise = class extends Promise {
      #executor;
      resolve;
      reject;
      constructor(executor = null) {
        const deferredExecutor = createDeferredExecutor();
        super((originalResolve, originalReject) => {
          deferredExecutor(originalResolve, originalReject);
          executor?.(deferredExecutor.resolve, deferredExecutor.reject);
        });
        this.#executor = deferredExecutor;
        this.resolve = this.#executor.resolve;
        this.reject = this.#executor.reject;
      }
      get state() {
        return this.#executor.state;
      }
      get rejectionReason() {
        return this.#executor.rejectionReason;
      }
      then(onFulfilled, onRejected) {
        return this.#decorate(super.then(onFulfilled, onRejected));
      }
      catch(onRejected) {
        return this.#decorate(super.catch(onRejected));
      }
      finally(onfinally) {
        return this.#decorate(super.finally(onfinally));
      }
      #decorate(promise) {
        return Object.defineProperties(promise, {
          resolve: { configurable: true, value: this.resolve },
          reject: { configurable: true, value: this.reject }
        });
      }
    };
  }
});

// ../../node_modules/@mswjs/interceptors/lib/node/fetchUtils-BKJ1XmiO.mjs
function getGlobalSymbol(symbol) {
  return globalThis[symbol] || void 0;
}
function setGlobalSymbol(symbol, value) {
  globalThis[symbol] = value;
}
function deleteGlobalSymbol(symbol) {
  delete globalThis[symbol];
}
function createRequestId() {
  return Math.random().toString(16).slice(2);
}
function canParseUrl(url) {
  try {
    new URL(url);
    return true;
  } catch (_error) {
    return false;
  }
}
function getValueBySymbol(symbolName, source) {
  const symbol = Object.getOwnPropertySymbols(source).find((symbol$1) => {
    return symbol$1.description === symbolName;
  });
  if (symbol) return Reflect.get(source, symbol);
}
var InterceptorReadyState, Interceptor, InterceptorError, RequestController, FetchRequest, kStatus, kUrl, FetchResponse;
var init_fetchUtils_BKJ1XmiO = __esm({
  "../../node_modules/@mswjs/interceptors/lib/node/fetchUtils-BKJ1XmiO.mjs"() {
    init_lib3();
    init_lib4();
    init_build();
    init_lib2();
    InterceptorReadyState = /* @__PURE__ */ (function(InterceptorReadyState$1) {
      InterceptorReadyState$1["INACTIVE"] = "INACTIVE";
      InterceptorReadyState$1["APPLYING"] = "APPLYING";
      InterceptorReadyState$1["APPLIED"] = "APPLIED";
      InterceptorReadyState$1["DISPOSING"] = "DISPOSING";
      InterceptorReadyState$1["DISPOSED"] = "DISPOSED";
      return InterceptorReadyState$1;
    })({});
    Interceptor = class {
      constructor(symbol) {
        this.symbol = symbol;
        this.readyState = InterceptorReadyState.INACTIVE;
        this.emitter = new Emitter();
        this.subscriptions = [];
        this.logger = new Logger(symbol.description);
        this.emitter.setMaxListeners(0);
        this.logger.info("constructing the interceptor...");
      }
      /**
      * Determine if this interceptor can be applied
      * in the current environment.
      */
      checkEnvironment() {
        return true;
      }
      /**
      * Apply this interceptor to the current process.
      * Returns an already running interceptor instance if it's present.
      */
      apply() {
        const logger = this.logger.extend("apply");
        logger.info("applying the interceptor...");
        if (this.readyState === InterceptorReadyState.APPLIED) {
          logger.info("intercepted already applied!");
          return;
        }
        if (!this.checkEnvironment()) {
          logger.info("the interceptor cannot be applied in this environment!");
          return;
        }
        this.readyState = InterceptorReadyState.APPLYING;
        const runningInstance = this.getInstance();
        if (runningInstance) {
          logger.info("found a running instance, reusing...");
          this.on = (event, listener) => {
            logger.info('proxying the "%s" listener', event);
            runningInstance.emitter.addListener(event, listener);
            this.subscriptions.push(() => {
              runningInstance.emitter.removeListener(event, listener);
              logger.info('removed proxied "%s" listener!', event);
            });
            return this;
          };
          this.readyState = InterceptorReadyState.APPLIED;
          return;
        }
        logger.info("no running instance found, setting up a new instance...");
        this.setup();
        this.setInstance();
        this.readyState = InterceptorReadyState.APPLIED;
      }
      /**
      * Setup the module augments and stubs necessary for this interceptor.
      * This method is not run if there's a running interceptor instance
      * to prevent instantiating an interceptor multiple times.
      */
      setup() {
      }
      /**
      * Listen to the interceptor's public events.
      */
      on(event, listener) {
        const logger = this.logger.extend("on");
        if (this.readyState === InterceptorReadyState.DISPOSING || this.readyState === InterceptorReadyState.DISPOSED) {
          logger.info("cannot listen to events, already disposed!");
          return this;
        }
        logger.info('adding "%s" event listener:', event, listener);
        this.emitter.on(event, listener);
        return this;
      }
      once(event, listener) {
        this.emitter.once(event, listener);
        return this;
      }
      off(event, listener) {
        this.emitter.off(event, listener);
        return this;
      }
      removeAllListeners(event) {
        this.emitter.removeAllListeners(event);
        return this;
      }
      /**
      * Disposes of any side-effects this interceptor has introduced.
      */
      dispose() {
        const logger = this.logger.extend("dispose");
        if (this.readyState === InterceptorReadyState.DISPOSED) {
          logger.info("cannot dispose, already disposed!");
          return;
        }
        logger.info("disposing the interceptor...");
        this.readyState = InterceptorReadyState.DISPOSING;
        if (!this.getInstance()) {
          logger.info("no interceptors running, skipping dispose...");
          return;
        }
        this.clearInstance();
        logger.info("global symbol deleted:", getGlobalSymbol(this.symbol));
        if (this.subscriptions.length > 0) {
          logger.info("disposing of %d subscriptions...", this.subscriptions.length);
          for (const dispose of this.subscriptions) dispose();
          this.subscriptions = [];
          logger.info("disposed of all subscriptions!", this.subscriptions.length);
        }
        this.emitter.removeAllListeners();
        logger.info("destroyed the listener!");
        this.readyState = InterceptorReadyState.DISPOSED;
      }
      getInstance() {
        const instance = getGlobalSymbol(this.symbol);
        this.logger.info("retrieved global instance:", instance?.constructor?.name);
        return instance;
      }
      setInstance() {
        setGlobalSymbol(this.symbol, this);
        this.logger.info("set global instance!", this.symbol.description);
      }
      clearInstance() {
        deleteGlobalSymbol(this.symbol);
        this.logger.info("cleared global instance!", this.symbol.description);
      }
    };
    InterceptorError = class InterceptorError2 extends Error {
      constructor(message) {
        super(message);
        this.name = "InterceptorError";
        Object.setPrototypeOf(this, InterceptorError2.prototype);
      }
    };
    RequestController = class RequestController2 {
      static {
        this.PENDING = 0;
      }
      static {
        this.PASSTHROUGH = 1;
      }
      static {
        this.RESPONSE = 2;
      }
      static {
        this.ERROR = 3;
      }
      constructor(request, source) {
        this.request = request;
        this.source = source;
        this.readyState = RequestController2.PENDING;
        this.handled = new DeferredPromise();
      }
      get #handled() {
        return this.handled;
      }
      /**
      * Perform this request as-is.
      */
      async passthrough() {
        invariant.as(InterceptorError, this.readyState === RequestController2.PENDING, 'Failed to passthrough the "%s %s" request: the request has already been handled', this.request.method, this.request.url);
        this.readyState = RequestController2.PASSTHROUGH;
        await this.source.passthrough();
        this.#handled.resolve();
      }
      /**
      * Respond to this request with the given `Response` instance.
      *
      * @example
      * controller.respondWith(new Response())
      * controller.respondWith(Response.json({ id }))
      * controller.respondWith(Response.error())
      */
      respondWith(response) {
        invariant.as(InterceptorError, this.readyState === RequestController2.PENDING, 'Failed to respond to the "%s %s" request with "%d %s": the request has already been handled (%d)', this.request.method, this.request.url, response.status, response.statusText || "OK", this.readyState);
        this.readyState = RequestController2.RESPONSE;
        this.#handled.resolve();
        this.source.respondWith(response);
      }
      /**
      * Error this request with the given reason.
      *
      * @example
      * controller.errorWith()
      * controller.errorWith(new Error('Oops!'))
      * controller.errorWith({ message: 'Oops!'})
      */
      errorWith(reason) {
        invariant.as(InterceptorError, this.readyState === RequestController2.PENDING, 'Failed to error the "%s %s" request with "%s": the request has already been handled (%d)', this.request.method, this.request.url, reason?.toString(), this.readyState);
        this.readyState = RequestController2.ERROR;
        this.source.errorWith(reason);
        this.#handled.resolve();
      }
    };
    FetchRequest = class FetchRequest2 extends Request {
      static #resolveProperty(input, init = {}, key) {
        return init[key] ?? (input instanceof Request ? input[key] : void 0);
      }
      /**
      * Check if the given request method is configurable.
      * @see https://fetch.spec.whatwg.org/#methods
      */
      static isConfigurableMethod(method) {
        return method !== "CONNECT" && method !== "TRACE" && method !== "TRACK";
      }
      static isMethodWithBody(method) {
        return method !== "HEAD" && method !== "GET" && FetchRequest2.isConfigurableMethod(method);
      }
      /**
      * Check if the given request `mode` is configurable.
      * @see https://fetch.spec.whatwg.org/#concept-request-mode
      */
      static isConfigurableMode(mode) {
        return mode !== "navigate" && mode !== "websocket" && mode !== "webtransport";
      }
      constructor(input, init) {
        const method = FetchRequest2.#resolveProperty(input, init, "method") || "GET";
        const safeMethod = FetchRequest2.isConfigurableMethod(method) ? method : "GET";
        const hasExplicitBody = init != null && "body" in init;
        const bodyInit = !FetchRequest2.isMethodWithBody(method) ? { body: void 0 } : hasExplicitBody ? { body: init.body } : {};
        const mode = FetchRequest2.#resolveProperty(input, init, "mode") ?? void 0;
        const safeMode = FetchRequest2.isConfigurableMode(mode) ? mode : void 0;
        super(input, {
          ...init || {},
          method: safeMethod,
          mode: safeMode,
          duplex: init?.duplex ?? (FetchRequest2.isMethodWithBody(method) ? "half" : void 0),
          ...bodyInit
        });
        if (method !== safeMethod) this.#setInternalProperty("method", method);
        if (method === "CONNECT") {
          const url = new URL(input instanceof Request ? input.url : input);
          let authority;
          if (url.protocol === "localhost:") authority = url.href;
          else authority = url.pathname.replace(/^\/+/, "");
          Object.defineProperty(this, "url", {
            get: () => authority,
            enumerable: true,
            configurable: true
          });
        }
        if (mode != null && mode !== safeMode) this.#setInternalProperty("mode", mode);
      }
      #setInternalProperty(key, value) {
        const internalState = getValueBySymbol("state", this);
        if (internalState) Reflect.set(internalState, key, value);
        else Object.defineProperty(this, key, {
          value,
          enumerable: true,
          configurable: true,
          writable: false
        });
      }
    };
    kStatus = /* @__PURE__ */ Symbol("kStatus");
    kUrl = /* @__PURE__ */ Symbol("kUrl");
    FetchResponse = class FetchResponse2 extends Response {
      static {
        this.STATUS_CODES_WITHOUT_BODY = [
          101,
          103,
          204,
          205,
          304
        ];
      }
      static {
        this.STATUS_CODES_WITH_REDIRECT = [
          301,
          302,
          303,
          307,
          308
        ];
      }
      static isConfigurableStatusCode(status) {
        return status >= 200 && status <= 599;
      }
      static isRedirectResponse(status) {
        return FetchResponse2.STATUS_CODES_WITH_REDIRECT.includes(status);
      }
      /**
      * Returns a boolean indicating whether the given response status
      * code represents a response that can have a body.
      */
      static isResponseWithBody(status) {
        return !FetchResponse2.STATUS_CODES_WITHOUT_BODY.includes(status);
      }
      static setStatus(status, response) {
        const internalState = getValueBySymbol("state", response);
        if (internalState) internalState.status = status;
        else Object.defineProperty(response, "status", {
          value: status,
          enumerable: true,
          configurable: true,
          writable: false
        });
        Object.defineProperty(response, kStatus, {
          value: status,
          enumerable: false
        });
      }
      static setUrl(url, response) {
        if (!url || url === "about:" || !canParseUrl(url)) return;
        const state = getValueBySymbol("state", response);
        if (state) state.urlList.push(new URL(url));
        else Object.defineProperty(response, "url", {
          value: url,
          enumerable: true,
          configurable: true,
          writable: false
        });
        Object.defineProperty(response, kUrl, {
          value: url,
          enumerable: false
        });
      }
      /**
      * Parses the given raw HTTP headers into a Fetch API `Headers` instance.
      */
      static parseRawHeaders(rawHeaders) {
        const headers = new Headers();
        for (let line = 0; line < rawHeaders.length; line += 2) headers.append(rawHeaders[line], rawHeaders[line + 1]);
        return headers;
      }
      /**
      * Safely clones the given `Response`.
      * Coerces response clone exceptions into 500 mocked responses.
      * Handy in the environments that introduce arbitrary response
      * cloning restrictions, like "101 Switching Protocols" cloning
      * in "miniflare".
      */
      static clone(response) {
        try {
          return response.clone();
        } catch (error2) {
          return Response.json(error2 instanceof Error ? {
            name: error2.name,
            message: error2.message,
            stack: error2.stack
          } : {}, {
            status: 500,
            statusText: "Unclonable Response"
          });
        }
      }
      constructor(body, init = {}) {
        const status = init.status ?? 200;
        const safeStatus = FetchResponse2.isConfigurableStatusCode(status) ? status : 200;
        const finalBody = FetchResponse2.isResponseWithBody(status) ? body : null;
        super(finalBody, {
          status: safeStatus,
          statusText: init.statusText,
          headers: init.headers
        });
        if (status !== safeStatus) FetchResponse2.setStatus(status, this);
        FetchResponse2.setUrl(init.url, this);
      }
      clone() {
        const clonedResponse = super.clone();
        const customStatus = Reflect.get(this, kStatus);
        if (customStatus) FetchResponse2.setStatus(customStatus, clonedResponse);
        const customUrl = Reflect.get(this, kUrl);
        if (customUrl) FetchResponse2.setUrl(customUrl, clonedResponse);
        return clonedResponse;
      }
    };
  }
});

// ../../node_modules/@open-draft/until/lib/index.mjs
var until;
var init_lib5 = __esm({
  "../../node_modules/@open-draft/until/lib/index.mjs"() {
    until = async (promise) => {
      try {
        const data = await promise().catch((error2) => {
          throw error2;
        });
        return { error: null, data };
      } catch (error2) {
        return { error: error2, data: null };
      }
    };
  }
});

// ../../node_modules/@mswjs/interceptors/lib/node/handleRequest-FIQv5pwH.mjs
function isPropertyAccessible(obj, key) {
  try {
    obj[key];
    return true;
  } catch {
    return false;
  }
}
async function emitAsync(emitter, eventName, ...data) {
  const listeners = emitter.listeners(eventName);
  if (listeners.length === 0) return;
  for (const listener of listeners) await listener.apply(emitter, data);
}
function isObject(value, loose = false) {
  return loose ? Object.prototype.toString.call(value).startsWith("[object ") : Object.prototype.toString.call(value) === "[object Object]";
}
function createServerErrorResponse(body) {
  return new Response(JSON.stringify(body instanceof Error ? {
    name: body.name,
    message: body.message,
    stack: body.stack
  } : body), {
    status: 500,
    statusText: "Unhandled Exception",
    headers: { "Content-Type": "application/json" }
  });
}
function isResponseError(response) {
  return response != null && response instanceof Response && isPropertyAccessible(response, "type") && response.type === "error";
}
function isResponseLike(value) {
  return isObject(value, true) && isPropertyAccessible(value, "status") && isPropertyAccessible(value, "statusText") && isPropertyAccessible(value, "bodyUsed");
}
function isNodeLikeError(error2) {
  if (error2 == null) return false;
  if (!(error2 instanceof Error)) return false;
  return "code" in error2 && "errno" in error2;
}
async function handleRequest(options) {
  const handleResponse = async (response) => {
    if (response instanceof Error) {
      await options.controller.errorWith(response);
      return true;
    }
    if (isResponseError(response)) {
      await options.controller.respondWith(response);
      return true;
    }
    if (isResponseLike(response)) {
      await options.controller.respondWith(response);
      return true;
    }
    if (isObject(response)) {
      await options.controller.errorWith(response);
      return true;
    }
    return false;
  };
  const handleResponseError = async (error2) => {
    if (error2 instanceof InterceptorError) throw result.error;
    if (isNodeLikeError(error2)) {
      await options.controller.errorWith(error2);
      return true;
    }
    if (error2 instanceof Response) return await handleResponse(error2);
    return false;
  };
  const requestAbortPromise = new DeferredPromise();
  const onAbort = () => {
    requestAbortPromise.reject(options.request.signal?.reason);
  };
  if (options.request.signal) {
    if (options.request.signal.aborted) {
      await options.controller.errorWith(options.request.signal.reason);
      return;
    }
    options.request.signal.addEventListener("abort", onAbort, { once: true });
  }
  const result = await until(async () => {
    const requestListenersPromise = emitAsync(options.emitter, "request", {
      requestId: options.requestId,
      request: options.request,
      controller: options.controller
    });
    await Promise.race([
      requestAbortPromise,
      requestListenersPromise,
      options.controller.handled
    ]);
  });
  options.request.signal?.removeEventListener("abort", onAbort);
  if (requestAbortPromise.state === "rejected") {
    await options.controller.errorWith(requestAbortPromise.rejectionReason);
    return;
  }
  if (result.error) {
    if (await handleResponseError(result.error)) return;
    if (options.emitter.listenerCount("unhandledException") > 0) {
      const unhandledExceptionController = new RequestController(options.request, {
        passthrough() {
        },
        async respondWith(response) {
          await handleResponse(response);
        },
        async errorWith(reason) {
          await options.controller.errorWith(reason);
        }
      });
      await emitAsync(options.emitter, "unhandledException", {
        error: result.error,
        request: options.request,
        requestId: options.requestId,
        controller: unhandledExceptionController
      });
      if (unhandledExceptionController.readyState !== RequestController.PENDING) return;
    }
    await options.controller.respondWith(createServerErrorResponse(result.error));
    return;
  }
  if (options.controller.readyState === RequestController.PENDING) return await options.controller.passthrough();
  return options.controller.handled;
}
var init_handleRequest_FIQv5pwH = __esm({
  "../../node_modules/@mswjs/interceptors/lib/node/handleRequest-FIQv5pwH.mjs"() {
    init_fetchUtils_BKJ1XmiO();
    init_build();
    init_lib5();
  }
});

// ../../node_modules/@mswjs/interceptors/lib/node/hasConfigurableGlobal-BiTmog1u.mjs
function getDeepPropertyDescriptor(owner, key) {
  let currentOwner = owner;
  let descriptor;
  while (currentOwner) {
    descriptor = Object.getOwnPropertyDescriptor(currentOwner, key);
    if (descriptor) return {
      owner: currentOwner,
      descriptor
    };
    currentOwner = Object.getPrototypeOf(currentOwner);
  }
}
function hasConfigurableGlobal(propertyName) {
  const match2 = getDeepPropertyDescriptor(globalThis, propertyName);
  if (typeof match2 === "undefined") return false;
  const { descriptor } = match2;
  if (typeof descriptor.get === "function" && typeof descriptor.get() === "undefined") return false;
  if (typeof descriptor.get === "undefined" && descriptor.value == null) return false;
  if (typeof descriptor.set === "undefined" && !descriptor.configurable) {
    console.error(`[MSW] Failed to apply interceptor: the global \`${propertyName}\` property is non-configurable. This is likely an issue with your environment. If you are using a framework, please open an issue about this in their repository.`);
    return false;
  }
  return true;
}
var PatchesRegistry, patchesRegistry;
var init_hasConfigurableGlobal_BiTmog1u = __esm({
  "../../node_modules/@mswjs/interceptors/lib/node/hasConfigurableGlobal-BiTmog1u.mjs"() {
    init_lib2();
    PatchesRegistry = class {
      #replacements = /* @__PURE__ */ new Map();
      applyPatch(owner, key, getNextValue) {
        const ownerReplacements = this.#replacements.get(owner);
        invariant(!ownerReplacements?.has(key), `Failed to replace a global value at "${String(key)}": already replaced.`);
        const match2 = getDeepPropertyDescriptor(owner, key);
        if (typeof match2 === "undefined") {
          console.warn(`Failed to replace a global value at "${String(key)}": not a global value.`);
          return () => {
          };
        }
        if (match2.descriptor.configurable) Object.defineProperty(owner, key, {
          value: getNextValue(owner[key]),
          enumerable: true,
          configurable: true
        });
        else if (match2.descriptor.writable) owner[key] = getNextValue(owner[key]);
        else throw new Error(`Failed to patch a non-configurable non-writable property "${key.toString()}"`);
        const restorePatch = () => {
          const currentReplacements = this.#replacements.get(owner);
          if (!currentReplacements?.has(key)) return;
          if (match2.owner === owner)
            Object.defineProperty(match2.owner, key, match2.descriptor);
          else
            Reflect.deleteProperty(owner, key);
          currentReplacements.delete(key);
          if (currentReplacements.size === 0) this.#replacements.delete(owner);
        };
        if (ownerReplacements) ownerReplacements.set(key, restorePatch);
        else this.#replacements.set(owner, /* @__PURE__ */ new Map([[key, restorePatch]]));
        return restorePatch;
      }
      restoreAllPatches() {
        const errors = [];
        for (const [, ownerReplacements] of this.#replacements) for (const [, restorePatch] of ownerReplacements) try {
          restorePatch();
        } catch (error2) {
          if (error2 instanceof Error) errors.push(error2);
          else throw error2;
        }
        if (errors.length > 0) throw new AggregateError(errors, "FOO!");
      }
    };
    patchesRegistry = new PatchesRegistry();
  }
});

// ../../node_modules/@mswjs/interceptors/lib/node/getRawRequest-C2-1urzA.mjs
function setRawRequest(request, rawRequest) {
  Reflect.set(request, kRawRequest, rawRequest);
}
var kRawRequest;
var init_getRawRequest_C2_1urzA = __esm({
  "../../node_modules/@mswjs/interceptors/lib/node/getRawRequest-C2-1urzA.mjs"() {
    kRawRequest = /* @__PURE__ */ Symbol("kRawRequest");
  }
});

// ../../node_modules/@mswjs/interceptors/lib/node/fetch-CaC3rGEu.mjs
function createNetworkError(cause) {
  return Object.assign(/* @__PURE__ */ new TypeError("Failed to fetch"), { cause });
}
async function followFetchRedirect(request, response) {
  if (response.status !== 303 && request.body != null) return Promise.reject(createNetworkError());
  const requestUrl = new URL(request.url);
  let locationUrl;
  try {
    locationUrl = new URL(response.headers.get("location"), request.url);
  } catch (error2) {
    return Promise.reject(createNetworkError(error2));
  }
  if (!(locationUrl.protocol === "http:" || locationUrl.protocol === "https:")) return Promise.reject(createNetworkError("URL scheme must be a HTTP(S) scheme"));
  if (Reflect.get(request, kRedirectCount) > 20) return Promise.reject(createNetworkError("redirect count exceeded"));
  Object.defineProperty(request, kRedirectCount, { value: (Reflect.get(request, kRedirectCount) || 0) + 1 });
  if (request.mode === "cors" && (locationUrl.username || locationUrl.password) && !sameOrigin(requestUrl, locationUrl)) return Promise.reject(createNetworkError('cross origin not allowed for request mode "cors"'));
  const requestInit = {};
  if ([301, 302].includes(response.status) && request.method === "POST" || response.status === 303 && !["HEAD", "GET"].includes(request.method)) {
    requestInit.method = "GET";
    requestInit.body = null;
    REQUEST_BODY_HEADERS.forEach((headerName) => {
      request.headers.delete(headerName);
    });
  }
  if (!sameOrigin(requestUrl, locationUrl)) {
    request.headers.delete("authorization");
    request.headers.delete("proxy-authorization");
    request.headers.delete("cookie");
    request.headers.delete("host");
  }
  requestInit.headers = request.headers;
  const finalResponse = await fetch(new Request(locationUrl, requestInit));
  Object.defineProperty(finalResponse, "redirected", {
    value: true,
    configurable: true
  });
  return finalResponse;
}
function sameOrigin(left, right) {
  if (left.origin === right.origin && left.origin === "null") return true;
  if (left.protocol === right.protocol && left.hostname === right.hostname && left.port === right.port) return true;
  return false;
}
function parseContentEncoding(contentEncoding) {
  return contentEncoding.toLowerCase().split(",").map((coding) => coding.trim());
}
function createDecompressionStream(contentEncoding) {
  if (contentEncoding === "") return null;
  const codings = parseContentEncoding(contentEncoding);
  if (codings.length === 0) return null;
  return new PipelineStream(codings.reduceRight((transformers, coding) => {
    if (coding === "gzip" || coding === "x-gzip") return transformers.concat(new DecompressionStream("gzip"));
    else if (coding === "deflate") return transformers.concat(new DecompressionStream("deflate"));
    else if (coding === "br") return transformers.concat(new BrotliDecompressionStream());
    else transformers.length = 0;
    return transformers;
  }, []));
}
function decompressResponse(response) {
  if (response.body === null) return null;
  const decompressionStream = createDecompressionStream(response.headers.get("content-encoding") || "");
  if (!decompressionStream) return null;
  response.body.pipeTo(decompressionStream.writable);
  return decompressionStream.readable;
}
var import_node_zlib, REQUEST_BODY_HEADERS, kRedirectCount, BrotliDecompressionStream, PipelineStream, FetchInterceptor;
var init_fetch_CaC3rGEu = __esm({
  "../../node_modules/@mswjs/interceptors/lib/node/fetch-CaC3rGEu.mjs"() {
    init_fetchUtils_BKJ1XmiO();
    init_getRawRequest_C2_1urzA();
    init_handleRequest_FIQv5pwH();
    init_hasConfigurableGlobal_BiTmog1u();
    init_build();
    init_lib5();
    import_node_zlib = __toESM(require("node:zlib"), 1);
    REQUEST_BODY_HEADERS = [
      "content-encoding",
      "content-language",
      "content-location",
      "content-type",
      "content-length"
    ];
    kRedirectCount = /* @__PURE__ */ Symbol("kRedirectCount");
    BrotliDecompressionStream = class extends TransformStream {
      constructor() {
        const decompress = import_node_zlib.default.createBrotliDecompress({
          flush: import_node_zlib.default.constants.BROTLI_OPERATION_FLUSH,
          finishFlush: import_node_zlib.default.constants.BROTLI_OPERATION_FLUSH
        });
        super({ async transform(chunk, controller) {
          const buffer = Buffer.from(chunk);
          const decompressed = await new Promise((resolve2, reject) => {
            decompress.write(buffer, (error2) => {
              if (error2) reject(error2);
            });
            decompress.flush();
            decompress.once("data", (data) => resolve2(data));
            decompress.once("error", (error2) => reject(error2));
            decompress.once("end", () => controller.terminate());
          }).catch((error2) => {
            controller.error(error2);
          });
          controller.enqueue(decompressed);
        } });
      }
    };
    PipelineStream = class extends TransformStream {
      constructor(transformStreams, ...strategies) {
        super({}, ...strategies);
        const readable = [super.readable, ...transformStreams].reduce((readable$1, transform) => readable$1.pipeThrough(transform));
        Object.defineProperty(this, "readable", { get() {
          return readable;
        } });
      }
    };
    FetchInterceptor = class FetchInterceptor2 extends Interceptor {
      static {
        this.symbol = /* @__PURE__ */ Symbol.for("fetch-interceptor");
      }
      constructor() {
        super(FetchInterceptor2.symbol);
      }
      checkEnvironment() {
        return hasConfigurableGlobal("fetch");
      }
      async setup() {
        const logger = this.logger.extend("setup");
        const pureFetch = globalThis.fetch;
        const fetchProxy = async (input, init) => {
          const requestId = createRequestId();
          const request = new FetchRequest(typeof input === "string" && typeof location !== "undefined" && !canParseUrl(input) ? new URL(input, location.href) : input, init);
          if (input instanceof Request) setRawRequest(request, input);
          const responsePromise = new DeferredPromise();
          const controller = new RequestController(request, {
            passthrough: async () => {
              this.logger.info("request has not been handled, passthrough...");
              const requestCloneForResponseEvent = request.clone();
              const { error: responseError, data: originalResponse } = await until(() => pureFetch(request));
              if (responseError) return responsePromise.reject(responseError);
              this.logger.info("original fetch performed", originalResponse);
              if (this.emitter.listenerCount("response") > 0) {
                this.logger.info('emitting the "response" event...');
                const responseClone = FetchResponse.clone(originalResponse);
                await emitAsync(this.emitter, "response", {
                  response: responseClone,
                  isMockedResponse: false,
                  request: requestCloneForResponseEvent,
                  requestId
                });
              }
              responsePromise.resolve(originalResponse);
            },
            respondWith: async (rawResponse) => {
              if (isResponseError(rawResponse)) {
                this.logger.info("request has errored!", { response: rawResponse });
                responsePromise.reject(createNetworkError(rawResponse));
                return;
              }
              this.logger.info("received mocked response!", { rawResponse });
              const response = new FetchResponse(decompressResponse(rawResponse) || rawResponse.body, {
                url: request.url,
                status: rawResponse.status,
                statusText: rawResponse.statusText,
                headers: rawResponse.headers
              });
              if (FetchResponse.isRedirectResponse(response.status)) {
                if (request.redirect === "error") {
                  responsePromise.reject(createNetworkError("unexpected redirect"));
                  return;
                }
                if (request.redirect === "follow") {
                  followFetchRedirect(request, response).then((response$1) => {
                    responsePromise.resolve(response$1);
                  }, (reason) => {
                    responsePromise.reject(reason);
                  });
                  return;
                }
              }
              if (this.emitter.listenerCount("response") > 0) {
                this.logger.info('emitting the "response" event...');
                await emitAsync(this.emitter, "response", {
                  response: FetchResponse.clone(response),
                  isMockedResponse: true,
                  request,
                  requestId
                });
              }
              responsePromise.resolve(response);
            },
            errorWith: (reason) => {
              this.logger.info("request has been aborted!", { reason });
              responsePromise.reject(reason);
            }
          });
          this.logger.info("[%s] %s", request.method, request.url);
          this.logger.info("awaiting for the mocked response...");
          this.logger.info('emitting the "request" event for %s listener(s)...', this.emitter.listenerCount("request"));
          await handleRequest({
            request,
            requestId,
            emitter: this.emitter,
            controller
          });
          return responsePromise;
        };
        logger.info("patching global fetch...");
        this.subscriptions.push(patchesRegistry.applyPatch(globalThis, "fetch", () => fetchProxy));
        logger.info("global fetch patched!", globalThis.fetch.name);
      }
    };
  }
});

// ../../node_modules/@mswjs/interceptors/lib/node/interceptors/fetch/index.mjs
var fetch_exports = {};
__export(fetch_exports, {
  FetchInterceptor: () => FetchInterceptor
});
var init_fetch = __esm({
  "../../node_modules/@mswjs/interceptors/lib/node/interceptors/fetch/index.mjs"() {
    init_fetchUtils_BKJ1XmiO();
    init_handleRequest_FIQv5pwH();
    init_hasConfigurableGlobal_BiTmog1u();
    init_fetch_CaC3rGEu();
  }
});

// ../../node_modules/@mswjs/interceptors/lib/browser/createRequestId-DYCsFHOi.mjs
function getGlobalSymbol2(symbol) {
  return globalThis[symbol] || void 0;
}
function setGlobalSymbol2(symbol, value) {
  globalThis[symbol] = value;
}
function deleteGlobalSymbol2(symbol) {
  delete globalThis[symbol];
}
function createRequestId2() {
  return Math.random().toString(16).slice(2);
}
var InterceptorReadyState2, Interceptor2;
var init_createRequestId_DYCsFHOi = __esm({
  "../../node_modules/@mswjs/interceptors/lib/browser/createRequestId-DYCsFHOi.mjs"() {
    init_lib3();
    init_lib4();
    InterceptorReadyState2 = /* @__PURE__ */ (function(InterceptorReadyState$1) {
      InterceptorReadyState$1["INACTIVE"] = "INACTIVE";
      InterceptorReadyState$1["APPLYING"] = "APPLYING";
      InterceptorReadyState$1["APPLIED"] = "APPLIED";
      InterceptorReadyState$1["DISPOSING"] = "DISPOSING";
      InterceptorReadyState$1["DISPOSED"] = "DISPOSED";
      return InterceptorReadyState$1;
    })({});
    Interceptor2 = class {
      constructor(symbol) {
        this.symbol = symbol;
        this.readyState = InterceptorReadyState2.INACTIVE;
        this.emitter = new Emitter();
        this.subscriptions = [];
        this.logger = new Logger(symbol.description);
        this.emitter.setMaxListeners(0);
        this.logger.info("constructing the interceptor...");
      }
      /**
      * Determine if this interceptor can be applied
      * in the current environment.
      */
      checkEnvironment() {
        return true;
      }
      /**
      * Apply this interceptor to the current process.
      * Returns an already running interceptor instance if it's present.
      */
      apply() {
        const logger = this.logger.extend("apply");
        logger.info("applying the interceptor...");
        if (this.readyState === InterceptorReadyState2.APPLIED) {
          logger.info("intercepted already applied!");
          return;
        }
        if (!this.checkEnvironment()) {
          logger.info("the interceptor cannot be applied in this environment!");
          return;
        }
        this.readyState = InterceptorReadyState2.APPLYING;
        const runningInstance = this.getInstance();
        if (runningInstance) {
          logger.info("found a running instance, reusing...");
          this.on = (event, listener) => {
            logger.info('proxying the "%s" listener', event);
            runningInstance.emitter.addListener(event, listener);
            this.subscriptions.push(() => {
              runningInstance.emitter.removeListener(event, listener);
              logger.info('removed proxied "%s" listener!', event);
            });
            return this;
          };
          this.readyState = InterceptorReadyState2.APPLIED;
          return;
        }
        logger.info("no running instance found, setting up a new instance...");
        this.setup();
        this.setInstance();
        this.readyState = InterceptorReadyState2.APPLIED;
      }
      /**
      * Setup the module augments and stubs necessary for this interceptor.
      * This method is not run if there's a running interceptor instance
      * to prevent instantiating an interceptor multiple times.
      */
      setup() {
      }
      /**
      * Listen to the interceptor's public events.
      */
      on(event, listener) {
        const logger = this.logger.extend("on");
        if (this.readyState === InterceptorReadyState2.DISPOSING || this.readyState === InterceptorReadyState2.DISPOSED) {
          logger.info("cannot listen to events, already disposed!");
          return this;
        }
        logger.info('adding "%s" event listener:', event, listener);
        this.emitter.on(event, listener);
        return this;
      }
      once(event, listener) {
        this.emitter.once(event, listener);
        return this;
      }
      off(event, listener) {
        this.emitter.off(event, listener);
        return this;
      }
      removeAllListeners(event) {
        this.emitter.removeAllListeners(event);
        return this;
      }
      /**
      * Disposes of any side-effects this interceptor has introduced.
      */
      dispose() {
        const logger = this.logger.extend("dispose");
        if (this.readyState === InterceptorReadyState2.DISPOSED) {
          logger.info("cannot dispose, already disposed!");
          return;
        }
        logger.info("disposing the interceptor...");
        this.readyState = InterceptorReadyState2.DISPOSING;
        if (!this.getInstance()) {
          logger.info("no interceptors running, skipping dispose...");
          return;
        }
        this.clearInstance();
        logger.info("global symbol deleted:", getGlobalSymbol2(this.symbol));
        if (this.subscriptions.length > 0) {
          logger.info("disposing of %d subscriptions...", this.subscriptions.length);
          for (const dispose of this.subscriptions) dispose();
          this.subscriptions = [];
          logger.info("disposed of all subscriptions!", this.subscriptions.length);
        }
        this.emitter.removeAllListeners();
        logger.info("destroyed the listener!");
        this.readyState = InterceptorReadyState2.DISPOSED;
      }
      getInstance() {
        const instance = getGlobalSymbol2(this.symbol);
        this.logger.info("retrieved global instance:", instance?.constructor?.name);
        return instance;
      }
      setInstance() {
        setGlobalSymbol2(this.symbol, this);
        this.logger.info("set global instance!", this.symbol.description);
      }
      clearInstance() {
        deleteGlobalSymbol2(this.symbol);
        this.logger.info("cleared global instance!", this.symbol.description);
      }
    };
  }
});

// ../../node_modules/@mswjs/interceptors/lib/browser/resolveWebSocketUrl-C83-x9iE.mjs
function resolveWebSocketUrl(url) {
  if (typeof url === "string") return resolveWebSocketUrl(new URL(url, typeof location !== "undefined" ? location.href : void 0));
  if (url.protocol === "http:") url.protocol = "ws:";
  else if (url.protocol === "https:") url.protocol = "wss:";
  if (url.protocol !== "ws:" && url.protocol !== "wss:")
    throw new SyntaxError(`Failed to construct 'WebSocket': The URL's scheme must be either 'http', 'https', 'ws', or 'wss'. '${url.protocol}' is not allowed.`);
  if (url.hash !== "") throw new SyntaxError(`Failed to construct 'WebSocket': The URL contains a fragment identifier ('${url.hash}'). Fragment identifiers are not allowed in WebSocket URLs.`);
  return url.href;
}
var init_resolveWebSocketUrl_C83_x9iE = __esm({
  "../../node_modules/@mswjs/interceptors/lib/browser/resolveWebSocketUrl-C83-x9iE.mjs"() {
  }
});

// ../../node_modules/@mswjs/interceptors/lib/browser/hasConfigurableGlobal-C8zq1MCg.mjs
async function emitAsync2(emitter, eventName, ...data) {
  const listeners = emitter.listeners(eventName);
  if (listeners.length === 0) return;
  for (const listener of listeners) await listener.apply(emitter, data);
}
function getDeepPropertyDescriptor2(owner, key) {
  let currentOwner = owner;
  let descriptor;
  while (currentOwner) {
    descriptor = Object.getOwnPropertyDescriptor(currentOwner, key);
    if (descriptor) return {
      owner: currentOwner,
      descriptor
    };
    currentOwner = Object.getPrototypeOf(currentOwner);
  }
}
function hasConfigurableGlobal2(propertyName) {
  const match2 = getDeepPropertyDescriptor2(globalThis, propertyName);
  if (typeof match2 === "undefined") return false;
  const { descriptor } = match2;
  if (typeof descriptor.get === "function" && typeof descriptor.get() === "undefined") return false;
  if (typeof descriptor.get === "undefined" && descriptor.value == null) return false;
  if (typeof descriptor.set === "undefined" && !descriptor.configurable) {
    console.error(`[MSW] Failed to apply interceptor: the global \`${propertyName}\` property is non-configurable. This is likely an issue with your environment. If you are using a framework, please open an issue about this in their repository.`);
    return false;
  }
  return true;
}
var PatchesRegistry2, patchesRegistry2;
var init_hasConfigurableGlobal_C8zq1MCg = __esm({
  "../../node_modules/@mswjs/interceptors/lib/browser/hasConfigurableGlobal-C8zq1MCg.mjs"() {
    init_lib2();
    PatchesRegistry2 = class {
      #replacements = /* @__PURE__ */ new Map();
      applyPatch(owner, key, getNextValue) {
        const ownerReplacements = this.#replacements.get(owner);
        invariant(!ownerReplacements?.has(key), `Failed to replace a global value at "${String(key)}": already replaced.`);
        const match2 = getDeepPropertyDescriptor2(owner, key);
        if (typeof match2 === "undefined") {
          console.warn(`Failed to replace a global value at "${String(key)}": not a global value.`);
          return () => {
          };
        }
        if (match2.descriptor.configurable) Object.defineProperty(owner, key, {
          value: getNextValue(owner[key]),
          enumerable: true,
          configurable: true
        });
        else if (match2.descriptor.writable) owner[key] = getNextValue(owner[key]);
        else throw new Error(`Failed to patch a non-configurable non-writable property "${key.toString()}"`);
        const restorePatch = () => {
          const currentReplacements = this.#replacements.get(owner);
          if (!currentReplacements?.has(key)) return;
          if (match2.owner === owner)
            Object.defineProperty(match2.owner, key, match2.descriptor);
          else
            Reflect.deleteProperty(owner, key);
          currentReplacements.delete(key);
          if (currentReplacements.size === 0) this.#replacements.delete(owner);
        };
        if (ownerReplacements) ownerReplacements.set(key, restorePatch);
        else this.#replacements.set(owner, /* @__PURE__ */ new Map([[key, restorePatch]]));
        return restorePatch;
      }
      restoreAllPatches() {
        const errors = [];
        for (const [, ownerReplacements] of this.#replacements) for (const [, restorePatch] of ownerReplacements) try {
          restorePatch();
        } catch (error2) {
          if (error2 instanceof Error) errors.push(error2);
          else throw error2;
        }
        if (errors.length > 0) throw new AggregateError(errors, "FOO!");
      }
    };
    patchesRegistry2 = new PatchesRegistry2();
  }
});

// ../../node_modules/@mswjs/interceptors/lib/browser/interceptors/WebSocket/index.mjs
var WebSocket_exports = {};
__export(WebSocket_exports, {
  CancelableCloseEvent: () => CancelableCloseEvent,
  CancelableMessageEvent: () => CancelableMessageEvent,
  CloseEvent: () => CloseEvent,
  WebSocketClientConnection: () => WebSocketClientConnection,
  WebSocketClientConnectionProtocol: () => WebSocketClientConnectionProtocol,
  WebSocketInterceptor: () => WebSocketInterceptor,
  WebSocketServerConnection: () => WebSocketServerConnection,
  WebSocketServerConnectionProtocol: () => WebSocketServerConnectionProtocol
});
function bindEvent(target, event) {
  Object.defineProperties(event, {
    target: {
      value: target,
      enumerable: true,
      writable: true
    },
    currentTarget: {
      value: target,
      enumerable: true,
      writable: true
    }
  });
  return event;
}
function getDataSize(data) {
  if (typeof data === "string") return data.length;
  if (data instanceof Blob) return data.size;
  return data.byteLength;
}
var kCancelable, kDefaultPrevented, CancelableMessageEvent, CloseEvent, CancelableCloseEvent, kEmitter$1, kBoundListener$1, WebSocketClientConnectionProtocol, WebSocketClientConnection, WEBSOCKET_CLOSE_CODE_RANGE_ERROR, kPassthroughPromise, kOnSend, kClose, WebSocketOverride, kEmitter, kBoundListener, kSend, WebSocketServerConnectionProtocol, WebSocketServerConnection, WebSocketClassTransport, WebSocketInterceptor;
var init_WebSocket = __esm({
  "../../node_modules/@mswjs/interceptors/lib/browser/interceptors/WebSocket/index.mjs"() {
    init_createRequestId_DYCsFHOi();
    init_resolveWebSocketUrl_C83_x9iE();
    init_hasConfigurableGlobal_C8zq1MCg();
    init_build();
    init_lib2();
    kCancelable = /* @__PURE__ */ Symbol("kCancelable");
    kDefaultPrevented = /* @__PURE__ */ Symbol("kDefaultPrevented");
    CancelableMessageEvent = class extends MessageEvent {
      constructor(type, init) {
        super(type, init);
        this[kCancelable] = !!init.cancelable;
        this[kDefaultPrevented] = false;
      }
      get cancelable() {
        return this[kCancelable];
      }
      set cancelable(nextCancelable) {
        this[kCancelable] = nextCancelable;
      }
      get defaultPrevented() {
        return this[kDefaultPrevented];
      }
      set defaultPrevented(nextDefaultPrevented) {
        this[kDefaultPrevented] = nextDefaultPrevented;
      }
      preventDefault() {
        if (this.cancelable && !this[kDefaultPrevented]) this[kDefaultPrevented] = true;
      }
    };
    CloseEvent = class extends Event {
      constructor(type, init = {}) {
        super(type, init);
        this.code = init.code === void 0 ? 0 : init.code;
        this.reason = init.reason === void 0 ? "" : init.reason;
        this.wasClean = init.wasClean === void 0 ? false : init.wasClean;
      }
    };
    CancelableCloseEvent = class extends CloseEvent {
      constructor(type, init = {}) {
        super(type, init);
        this[kCancelable] = !!init.cancelable;
        this[kDefaultPrevented] = false;
      }
      get cancelable() {
        return this[kCancelable];
      }
      set cancelable(nextCancelable) {
        this[kCancelable] = nextCancelable;
      }
      get defaultPrevented() {
        return this[kDefaultPrevented];
      }
      set defaultPrevented(nextDefaultPrevented) {
        this[kDefaultPrevented] = nextDefaultPrevented;
      }
      preventDefault() {
        if (this.cancelable && !this[kDefaultPrevented]) this[kDefaultPrevented] = true;
      }
    };
    kEmitter$1 = /* @__PURE__ */ Symbol("kEmitter");
    kBoundListener$1 = /* @__PURE__ */ Symbol("kBoundListener");
    WebSocketClientConnectionProtocol = class {
    };
    WebSocketClientConnection = class {
      constructor(socket, transport) {
        this.socket = socket;
        this.transport = transport;
        this.id = createRequestId2();
        this.url = new URL(socket.url);
        this[kEmitter$1] = new EventTarget();
        this.transport.addEventListener("outgoing", (event) => {
          const message = bindEvent(this.socket, new CancelableMessageEvent("message", {
            data: event.data,
            origin: event.origin,
            cancelable: true
          }));
          this[kEmitter$1].dispatchEvent(message);
          if (message.defaultPrevented) event.preventDefault();
        });
        this.transport.addEventListener("close", (event) => {
          this[kEmitter$1].dispatchEvent(bindEvent(this.socket, new CloseEvent("close", event)));
        });
      }
      /**
      * Listen for the outgoing events from the connected WebSocket client.
      */
      addEventListener(type, listener, options) {
        if (!Reflect.has(listener, kBoundListener$1)) {
          const boundListener = listener.bind(this.socket);
          Object.defineProperty(listener, kBoundListener$1, {
            value: boundListener,
            enumerable: false,
            configurable: false
          });
        }
        this[kEmitter$1].addEventListener(type, Reflect.get(listener, kBoundListener$1), options);
      }
      /**
      * Removes the listener for the given event.
      */
      removeEventListener(event, listener, options) {
        this[kEmitter$1].removeEventListener(event, Reflect.get(listener, kBoundListener$1), options);
      }
      /**
      * Send data to the connected client.
      */
      send(data) {
        this.transport.send(data);
      }
      /**
      * Close the WebSocket connection.
      * @param {number} code A status code (see https://www.rfc-editor.org/rfc/rfc6455#section-7.4.1).
      * @param {string} reason A custom connection close reason.
      */
      close(code, reason) {
        this.transport.close(code, reason);
      }
    };
    WEBSOCKET_CLOSE_CODE_RANGE_ERROR = "InvalidAccessError: close code out of user configurable range";
    kPassthroughPromise = /* @__PURE__ */ Symbol("kPassthroughPromise");
    kOnSend = /* @__PURE__ */ Symbol("kOnSend");
    kClose = /* @__PURE__ */ Symbol("kClose");
    WebSocketOverride = class extends EventTarget {
      static {
        this.CONNECTING = 0;
      }
      static {
        this.OPEN = 1;
      }
      static {
        this.CLOSING = 2;
      }
      static {
        this.CLOSED = 3;
      }
      constructor(url, protocols) {
        super();
        this.CONNECTING = 0;
        this.OPEN = 1;
        this.CLOSING = 2;
        this.CLOSED = 3;
        this._onopen = null;
        this._onmessage = null;
        this._onerror = null;
        this._onclose = null;
        this.url = resolveWebSocketUrl(url);
        this.protocol = "";
        this.extensions = "";
        this.binaryType = "blob";
        this.readyState = this.CONNECTING;
        this.bufferedAmount = 0;
        this[kPassthroughPromise] = new DeferredPromise();
        queueMicrotask(async () => {
          if (await this[kPassthroughPromise]) return;
          this.protocol = typeof protocols === "string" ? protocols : Array.isArray(protocols) && protocols.length > 0 ? protocols[0] : "";
          if (this.readyState === this.CONNECTING) {
            this.readyState = this.OPEN;
            this.dispatchEvent(bindEvent(this, new Event("open")));
          }
        });
      }
      set onopen(listener) {
        this.removeEventListener("open", this._onopen);
        this._onopen = listener;
        if (listener !== null) this.addEventListener("open", listener);
      }
      get onopen() {
        return this._onopen;
      }
      set onmessage(listener) {
        this.removeEventListener("message", this._onmessage);
        this._onmessage = listener;
        if (listener !== null) this.addEventListener("message", listener);
      }
      get onmessage() {
        return this._onmessage;
      }
      set onerror(listener) {
        this.removeEventListener("error", this._onerror);
        this._onerror = listener;
        if (listener !== null) this.addEventListener("error", listener);
      }
      get onerror() {
        return this._onerror;
      }
      set onclose(listener) {
        this.removeEventListener("close", this._onclose);
        this._onclose = listener;
        if (listener !== null) this.addEventListener("close", listener);
      }
      get onclose() {
        return this._onclose;
      }
      /**
      * @see https://websockets.spec.whatwg.org/#ref-for-dom-websocket-send%E2%91%A0
      */
      send(data) {
        if (this.readyState === this.CONNECTING) {
          this.close();
          throw new DOMException("InvalidStateError");
        }
        if (this.readyState === this.CLOSING || this.readyState === this.CLOSED) return;
        this.bufferedAmount += getDataSize(data);
        queueMicrotask(() => {
          this.bufferedAmount = 0;
          this[kOnSend]?.(data);
        });
      }
      close(code = 1e3, reason) {
        invariant(code, WEBSOCKET_CLOSE_CODE_RANGE_ERROR);
        invariant(code === 1e3 || code >= 3e3 && code <= 4999, WEBSOCKET_CLOSE_CODE_RANGE_ERROR);
        this[kClose](code, reason);
      }
      [kClose](code = 1e3, reason, wasClean = true) {
        if (this.readyState === this.CLOSING || this.readyState === this.CLOSED) return;
        this.readyState = this.CLOSING;
        queueMicrotask(() => {
          this.readyState = this.CLOSED;
          this.dispatchEvent(bindEvent(this, new CloseEvent("close", {
            code,
            reason,
            wasClean
          })));
          this._onopen = null;
          this._onmessage = null;
          this._onerror = null;
          this._onclose = null;
        });
      }
      addEventListener(type, listener, options) {
        return super.addEventListener(type, listener, options);
      }
      removeEventListener(type, callback, options) {
        return super.removeEventListener(type, callback, options);
      }
    };
    kEmitter = /* @__PURE__ */ Symbol("kEmitter");
    kBoundListener = /* @__PURE__ */ Symbol("kBoundListener");
    kSend = /* @__PURE__ */ Symbol("kSend");
    WebSocketServerConnectionProtocol = class {
    };
    WebSocketServerConnection = class {
      constructor(client, transport, createConnection) {
        this.client = client;
        this.transport = transport;
        this.createConnection = createConnection;
        this[kEmitter] = new EventTarget();
        this.mockCloseController = new AbortController();
        this.realCloseController = new AbortController();
        this.transport.addEventListener("outgoing", (event) => {
          if (typeof this.realWebSocket === "undefined") return;
          queueMicrotask(() => {
            if (!event.defaultPrevented)
              this[kSend](event.data);
          });
        });
        this.transport.addEventListener("incoming", this.handleIncomingMessage.bind(this));
      }
      /**
      * The `WebSocket` instance connected to the original server.
      * Accessing this before calling `server.connect()` will throw.
      */
      get socket() {
        invariant(this.realWebSocket, 'Cannot access "socket" on the original WebSocket server object: the connection is not open. Did you forget to call `server.connect()`?');
        return this.realWebSocket;
      }
      /**
      * Open connection to the original WebSocket server.
      */
      connect() {
        invariant(!this.realWebSocket || this.realWebSocket.readyState !== WebSocket.OPEN, 'Failed to call "connect()" on the original WebSocket instance: the connection already open');
        const realWebSocket = this.createConnection();
        realWebSocket.binaryType = this.client.binaryType;
        realWebSocket.addEventListener("open", (event) => {
          this[kEmitter].dispatchEvent(bindEvent(this.realWebSocket, new Event("open", event)));
        }, { once: true });
        realWebSocket.addEventListener("message", (event) => {
          this.transport.dispatchEvent(bindEvent(this.realWebSocket, new MessageEvent("incoming", {
            data: event.data,
            origin: event.origin
          })));
        });
        this.client.addEventListener("close", (event) => {
          this.handleMockClose(event);
        }, { signal: this.mockCloseController.signal });
        realWebSocket.addEventListener("close", (event) => {
          this.handleRealClose(event);
        }, { signal: this.realCloseController.signal });
        realWebSocket.addEventListener("error", () => {
          const errorEvent = bindEvent(realWebSocket, new Event("error", { cancelable: true }));
          this[kEmitter].dispatchEvent(errorEvent);
          if (!errorEvent.defaultPrevented) this.client.dispatchEvent(bindEvent(this.client, new Event("error")));
        });
        this.realWebSocket = realWebSocket;
      }
      /**
      * Listen for the incoming events from the original WebSocket server.
      */
      addEventListener(event, listener, options) {
        if (!Reflect.has(listener, kBoundListener)) {
          const boundListener = listener.bind(this.client);
          Object.defineProperty(listener, kBoundListener, {
            value: boundListener,
            enumerable: false
          });
        }
        this[kEmitter].addEventListener(event, Reflect.get(listener, kBoundListener), options);
      }
      /**
      * Remove the listener for the given event.
      */
      removeEventListener(event, listener, options) {
        this[kEmitter].removeEventListener(event, Reflect.get(listener, kBoundListener), options);
      }
      /**
      * Send data to the original WebSocket server.
      * @example
      * server.send('hello')
      * server.send(new Blob(['hello']))
      * server.send(new TextEncoder().encode('hello'))
      */
      send(data) {
        this[kSend](data);
      }
      [kSend](data) {
        const { realWebSocket } = this;
        invariant(realWebSocket, 'Failed to call "server.send()" for "%s": the connection is not open. Did you forget to call "server.connect()"?', this.client.url);
        if (realWebSocket.readyState === WebSocket.CLOSING || realWebSocket.readyState === WebSocket.CLOSED) return;
        if (realWebSocket.readyState === WebSocket.CONNECTING) {
          realWebSocket.addEventListener("open", () => {
            realWebSocket.send(data);
          }, { once: true });
          return;
        }
        realWebSocket.send(data);
      }
      /**
      * Close the actual server connection.
      */
      close() {
        const { realWebSocket } = this;
        invariant(realWebSocket, 'Failed to close server connection for "%s": the connection is not open. Did you forget to call "server.connect()"?', this.client.url);
        this.realCloseController.abort();
        if (realWebSocket.readyState === WebSocket.CLOSING || realWebSocket.readyState === WebSocket.CLOSED) return;
        realWebSocket.close();
        queueMicrotask(() => {
          this[kEmitter].dispatchEvent(bindEvent(this.realWebSocket, new CancelableCloseEvent("close", {
            code: 1e3,
            cancelable: true
          })));
        });
      }
      handleIncomingMessage(event) {
        const messageEvent = bindEvent(event.target, new CancelableMessageEvent("message", {
          data: event.data,
          origin: event.origin,
          cancelable: true
        }));
        this[kEmitter].dispatchEvent(messageEvent);
        if (!messageEvent.defaultPrevented) this.client.dispatchEvent(bindEvent(
          /**
          * @note Bind the forwarded original server events
          * to the mock WebSocket instance so it would
          * dispatch them straight away.
          */
          this.client,
          new MessageEvent("message", {
            data: event.data,
            origin: event.origin
          })
        ));
      }
      handleMockClose(_event) {
        if (this.realWebSocket) this.realWebSocket.close();
      }
      handleRealClose(event) {
        this.mockCloseController.abort();
        const closeEvent = bindEvent(this.realWebSocket, new CancelableCloseEvent("close", {
          code: event.code,
          reason: event.reason,
          wasClean: event.wasClean,
          cancelable: true
        }));
        this[kEmitter].dispatchEvent(closeEvent);
        if (!closeEvent.defaultPrevented) this.client[kClose](event.code, event.reason);
      }
    };
    WebSocketClassTransport = class extends EventTarget {
      constructor(socket) {
        super();
        this.socket = socket;
        this.socket.addEventListener("close", (event) => {
          this.dispatchEvent(bindEvent(this.socket, new CloseEvent("close", event)));
        });
        this.socket[kOnSend] = (data) => {
          this.dispatchEvent(bindEvent(this.socket, new CancelableMessageEvent("outgoing", {
            data,
            origin: this.socket.url,
            cancelable: true
          })));
        };
      }
      addEventListener(type, callback, options) {
        return super.addEventListener(type, callback, options);
      }
      dispatchEvent(event) {
        return super.dispatchEvent(event);
      }
      send(data) {
        queueMicrotask(() => {
          if (this.socket.readyState === this.socket.CLOSING || this.socket.readyState === this.socket.CLOSED) return;
          const dispatchEvent = () => {
            this.socket.dispatchEvent(bindEvent(
              /**
              * @note Setting this event's "target" to the
              * WebSocket override instance is important.
              * This way it can tell apart original incoming events
              * (must be forwarded to the transport) from the
              * mocked message events like the one below
              * (must be dispatched on the client instance).
              */
              this.socket,
              new MessageEvent("message", {
                data,
                origin: this.socket.url
              })
            ));
          };
          if (this.socket.readyState === this.socket.CONNECTING) this.socket.addEventListener("open", () => {
            dispatchEvent();
          }, { once: true });
          else dispatchEvent();
        });
      }
      close(code, reason) {
        this.socket[kClose](code, reason);
      }
    };
    WebSocketInterceptor = class WebSocketInterceptor2 extends Interceptor2 {
      static {
        this.symbol = /* @__PURE__ */ Symbol.for("websocket-interceptor");
      }
      constructor() {
        super(WebSocketInterceptor2.symbol);
      }
      checkEnvironment() {
        return hasConfigurableGlobal2("WebSocket");
      }
      setup() {
        const logger = this.logger.extend("setup");
        const WebSocketProxy = new Proxy(globalThis.WebSocket, { construct: (target, args, newTarget) => {
          const [url, protocols] = args;
          const createConnection = () => {
            return Reflect.construct(target, args, newTarget);
          };
          const socket = new WebSocketOverride(url, protocols);
          const transport = new WebSocketClassTransport(socket);
          queueMicrotask(async () => {
            try {
              const server = new WebSocketServerConnection(socket, transport, createConnection);
              const hasConnectionListeners = this.emitter.listenerCount("connection") > 0;
              await emitAsync2(this.emitter, "connection", {
                client: new WebSocketClientConnection(socket, transport),
                server,
                info: { protocols }
              });
              if (hasConnectionListeners) socket[kPassthroughPromise].resolve(false);
              else {
                socket[kPassthroughPromise].resolve(true);
                server.connect();
                server.addEventListener("open", () => {
                  socket.dispatchEvent(bindEvent(socket, new Event("open")));
                  if (server["realWebSocket"]) socket.protocol = server["realWebSocket"].protocol;
                });
              }
            } catch (error2) {
              if (error2 instanceof Error) {
                socket.dispatchEvent(new Event("error"));
                if (socket.readyState !== WebSocket.CLOSING && socket.readyState !== WebSocket.CLOSED) socket[kClose](1011, error2.message, false);
                console.error(error2);
              }
            }
          });
          return socket;
        } });
        logger.info("patching global WebSocket...");
        this.subscriptions.push(patchesRegistry2.applyPatch(globalThis, "WebSocket", () => WebSocketProxy));
        logger.info("global WebSocket patched!", globalThis.WebSocket.name);
      }
    };
  }
});

// src/network.ts
var network_exports = {};
__export(network_exports, {
  Network: () => Network
});
function compileRoutes(routes) {
  return Object.keys(routes).map((name) => {
    const m = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(name);
    if (m === null) throw new Error(`network.routes: ${JSON.stringify(name)} is not "METHOD /path" (for example "GET /api/chunks")`);
    const path = m[2].split("?")[0];
    return { method: m[1].toUpperCase(), segments: path.split("/").filter((s) => s !== ""), route: routes[name], name };
  });
}
function match(route, method, url) {
  if (route.method !== method) return null;
  const parts = url.pathname.split("/").filter((s) => s !== "");
  if (parts.length !== route.segments.length) return null;
  const params = {};
  for (let i = 0; i < parts.length; i++) {
    const want = route.segments[i];
    if (want.startsWith(":")) params[want.slice(1)] = decodeURIComponent(parts[i]);
    else if (want !== parts[i]) return null;
  }
  return params;
}
function socketUrl(s, origin) {
  const url = new URL(s, origin);
  if (url.protocol === "http:") url.protocol = "ws:";
  if (url.protocol === "https:") url.protocol = "wss:";
  return url;
}
function sameSocket(declared, actual) {
  return declared.protocol === actual.protocol && declared.host === actual.host && declared.pathname === actual.pathname;
}
var Network;
var init_network = __esm({
  "src/network.ts"() {
    "use strict";
    init_codec();
    init_xhr();
    Network = class {
      constructor(options, run) {
        this.run = run;
        this.codec = new Codec(options.codec);
        this.origin = new URL(options.origin ?? "http://localhost");
        this.routes = compileRoutes(options.routes ?? {});
        const sockets = options.socket === void 0 ? [] : Array.isArray(options.socket) ? options.socket : [options.socket];
        this.sockets = sockets.map((s) => socketUrl(s, this.origin));
      }
      run;
      codec;
      origin;
      routes;
      sockets;
      get hasSocket() {
        return this.sockets.length > 0;
      }
      /**
       * Patch `fetch` and `WebSocket` (Node 20 has no global WebSocket: the interceptor's class
       * becomes it), and give the store an `XMLHttpRequest` on the patched `fetch` (Node has none).
       */
      async install() {
        const g = globalThis;
        if (g.WebSocket === void 0) {
          Object.defineProperty(g, "WebSocket", { value: class WebSocket {
          }, configurable: true, writable: true });
        }
        const [{ FetchInterceptor: FetchInterceptor3 }, { WebSocketInterceptor: WebSocketInterceptor3 }] = await Promise.all([
          Promise.resolve().then(() => (init_fetch(), fetch_exports)),
          Promise.resolve().then(() => (init_WebSocket(), WebSocket_exports))
        ]);
        const http = new FetchInterceptor3();
        http.on("request", (args) => this.request(args));
        http.apply();
        const ws = new WebSocketInterceptor3();
        ws.on("connection", ({ client }) => this.connection(client));
        ws.apply();
        const intercepted = g.fetch;
        g.fetch = (input, init) => intercepted(typeof input === "string" || input instanceof URL ? new URL(String(input), this.origin).href : input, init);
        if (g.XMLHttpRequest === void 0) {
          const routed = () => g.fetch;
          Object.defineProperty(g, "XMLHttpRequest", { value: xmlHttpRequestOver(routed), configurable: true, writable: true });
        }
      }
      async request({ request, controller }) {
        const run = this.run();
        if (run === null || !run.current(`a ${request.method} request`)) {
          controller.errorWith(new TypeError("reconcile-sim: request from a store of an earlier run"));
          return;
        }
        const url = new URL(request.url);
        const found = this.routes.map((r) => ({ r, params: match(r, request.method, url) })).find((x) => x.params !== null);
        if (found === void 0) {
          const routes = this.routes.map((r) => r.name).join(", ") || "none declared";
          run.fail(new Error(`the store requested ${request.method} ${url.href}, which no route handles (routes: ${routes})`));
          controller.errorWith(new TypeError(`reconcile-sim: no route for ${request.method} ${url.pathname}`));
          return;
        }
        try {
          const text = await request.text();
          const body = text === "" ? void 0 : JSON.parse(text);
          const answer = await this.answer(run, found.r, { method: request.method, url, params: found.params, body });
          controller.respondWith(new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } }));
        } catch (e) {
          run.fail(new Error(`route ${found.r.name} (${request.method} ${url.href}): ${e?.message ?? String(e)}`));
          controller.errorWith(new TypeError(`reconcile-sim: route ${found.r.name} failed`));
        }
      }
      async answer(run, route, request) {
        if (route.route === "fetch") return this.codec.history(await run.fetch());
        if (route.route === "post") {
          const { id, text } = this.codec.postRequest(request.body);
          if (id === void 0) {
            const { response, storeId } = await run.postWithoutId(text);
            return this.codec.postResponse(response, storeId);
          }
          return this.codec.postResponse(await run.post(id, text), id);
        }
        return route.route(request);
      }
      connection(client) {
        const run = this.run();
        if (run === null || !run.current("a WebSocket connection")) return;
        if (!this.sockets.some((s) => sameSocket(s, client.url))) {
          const declared = this.sockets.map((s) => s.href).join(", ") || "none declared";
          run.fail(new Error(`the store opened a WebSocket to ${client.url.href}, which is not the declared socket (network.socket: ${declared})`));
          return;
        }
        run.sockets.add(client);
        client.addEventListener("close", () => run.sockets.delete(client));
      }
      /** One harness event to every open socket of the run, as the app's frame. */
      deliver(run, event) {
        if (run.sockets.size === 0) {
          run.fail(new Error(`the backend sent ${event.type} but the store has no open WebSocket to ${this.sockets.map((s) => s.href).join(" or ")}`));
          return;
        }
        const frame = this.codec.frame(event);
        for (const client of run.sockets) client.send(frame);
      }
    };
  }
});

// src/cli.ts
var import_node_fs3 = require("node:fs");

// src/host.ts
var import_node_path2 = require("node:path");

// src/loader.ts
var import_node_fs = require("node:fs");
var import_node_module = require("node:module");
var import_node_path = require("node:path");
var import_node_url = require("node:url");
var import_node_vm = __toESM(require("node:vm"), 1);
var PKG_VERSION = readOwnVersion();
function readOwnVersion() {
  try {
    const pkg = JSON.parse((0, import_node_fs.readFileSync)(new URL("../package.json", __importMetaUrl), "utf8"));
    return pkg.version ?? "0";
  } catch {
    return "0";
  }
}
function findRoot(from) {
  let dir = (0, import_node_path.resolve)(from);
  for (; ; ) {
    if ((0, import_node_fs.existsSync)((0, import_node_path.join)(dir, "package.json"))) return dir;
    const up = (0, import_node_path.dirname)(dir);
    if (up === dir) return (0, import_node_path.resolve)(from);
    dir = up;
  }
}
function paths(options) {
  const map = (0, import_node_path.resolve)(options.map);
  const store = options.store === void 0 ? void 0 : (0, import_node_path.resolve)(options.store);
  const root = (0, import_node_path.resolve)(options.root ?? findRoot((0, import_node_path.dirname)(map)));
  const cacheDir = (0, import_node_path.resolve)(options.cacheDir ?? (0, import_node_path.join)(root, "node_modules", ".cache", "reconcile-sim-adapter"));
  const key = hash53(JSON.stringify({ v: PKG_VERSION, node: process.versions.modules, map, store: store ?? null, root }));
  return { map, store, root, cacheDir, key, file: (0, import_node_path.join)(cacheDir, `${key}.cjs`), manifest: (0, import_node_path.join)(cacheDir, `${key}.json`) };
}
function hash53(text) {
  let h1 = 3735928559;
  let h2 = 1103547991;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ h1 >>> 16, 2246822507) ^ Math.imul(h2 ^ h2 >>> 13, 3266489909);
  h2 = Math.imul(h2 ^ h2 >>> 16, 2246822507) ^ Math.imul(h1 ^ h1 >>> 13, 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0");
}
function stat(path) {
  const s = (0, import_node_fs.statSync)(path, { throwIfNoEntry: false });
  return s === void 0 ? null : [s.size, s.mtimeMs];
}
function watched(path) {
  const m = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(path);
  return m === null ? path : (0, import_node_path.join)(m[1], "package.json");
}
function fromCache(p) {
  let manifest;
  try {
    manifest = JSON.parse((0, import_node_fs.readFileSync)(p.manifest, "utf8"));
  } catch {
    return null;
  }
  if (manifest.key !== p.key) return null;
  for (const [path, size, mtime] of manifest.inputs) {
    const s = stat(path);
    if (s === null ? size !== -1 : s[0] !== size || s[1] !== mtime) return null;
  }
  try {
    return (0, import_node_fs.readFileSync)(p.file, "utf8");
  } catch {
    return null;
  }
}
function writeAtomic(path, data) {
  const tmp = `${path}.${process.pid}.tmp`;
  (0, import_node_fs.writeFileSync)(tmp, data);
  (0, import_node_fs.renameSync)(tmp, path);
}
async function bundle(options) {
  const started = performance.now();
  const p = paths(options);
  if (!options.noCache) {
    const code = fromCache(p);
    if (code !== null) return { file: p.file, code, cached: true, ms: performance.now() - started, inputs: -1 };
  }
  const log2 = options.log ?? ((line) => process.stderr.write(`${line}
`));
  (0, import_node_fs.mkdirSync)(p.cacheDir, { recursive: true });
  const lock = `${p.file}.lock`;
  const locked = await acquire(lock, () => options.noCache ? null : fromCache(p));
  if (typeof locked === "string") return { file: p.file, code: locked, cached: true, ms: performance.now() - started, inputs: -1 };
  try {
    const { code, inputs } = await build(p, log2);
    writeAtomic(p.file, code);
    const watch = [...new Set(inputs.map(watched))].sort();
    const manifest = { key: p.key, inputs: watch.map((f) => [f, ...stat(f) ?? [-1, -1]]) };
    writeAtomic(p.manifest, JSON.stringify(manifest));
    return { file: p.file, code, cached: false, ms: performance.now() - started, inputs: inputs.length };
  } finally {
    if (locked) (0, import_node_fs.rmSync)(lock, { force: true });
  }
}
var LOCK_STALE_MS = 6e4;
async function acquire(lock, ready) {
  const waitUntil = Date.now() + LOCK_STALE_MS;
  for (; ; ) {
    try {
      (0, import_node_fs.writeFileSync)(lock, String(process.pid), { flag: "wx" });
      return true;
    } catch (e) {
      if (e.code !== "EEXIST") return false;
    }
    const age = Date.now() - ((0, import_node_fs.statSync)(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (age > LOCK_STALE_MS) {
      (0, import_node_fs.rmSync)(lock, { force: true });
      continue;
    }
    await new Promise((resolve2) => setTimeout(resolve2, 25));
    const code = ready();
    if (code !== null) return code;
    if (Date.now() > waitUntil) return false;
  }
}
var TS_STRIP = {
  compilerOptions: {
    // Svelte turns `x = $state(…)` class fields into accessors: keep them as fields.
    useDefineForClassFields: true,
    // Imports used only as types are dropped, whatever the project's tsconfig says.
    verbatimModuleSyntax: false,
    preserveValueImports: false,
    importsNotUsedAsValues: "remove"
  }
};
function resolveFrom(root, specifier) {
  for (const req of [(0, import_node_module.createRequire)((0, import_node_path.join)(root, "package.json")), (0, import_node_module.createRequire)(__importMetaUrl)]) {
    try {
      return req.resolve(specifier);
    } catch {
    }
  }
  throw new Error(`cannot find ${specifier}: install it in ${root} (npm install --save-dev ${specifier.split("/")[0]})`);
}
async function importPath(path, probe) {
  const mod = await import((0, import_node_url.pathToFileURL)(path).href);
  return typeof mod[probe] === "function" ? mod : mod.default;
}
async function kitAliases(root, log2) {
  let lib = "src/lib";
  const aliases = [];
  let config = null;
  for (const name of ["svelte.config.js", "svelte.config.mjs"]) {
    const path = (0, import_node_path.join)(root, name);
    if (!(0, import_node_fs.existsSync)(path)) continue;
    config = path;
    try {
      const mod = await import((0, import_node_url.pathToFileURL)(path).href);
      const kit = mod.default?.kit;
      if (kit?.files?.lib !== void 0) lib = kit.files.lib;
      for (const [k, v] of Object.entries(kit?.alias ?? {})) aliases.push([k, (0, import_node_path.resolve)(root, v), false]);
    } catch (e) {
      log2(`reconcile-sim-adapter: could not load ${name} (${e.message.split("\n")[0]}); using $lib = src/lib`);
    }
    break;
  }
  aliases.push(["$lib", (0, import_node_path.resolve)(root, lib), config === null]);
  return { aliases, config };
}
async function build(p, log2) {
  const esbuild = await importPath(resolveFrom(p.root, "esbuild"), "build");
  let svelteDir = null;
  const findSvelte = () => svelteDir ??= (0, import_node_path.dirname)(resolveFrom(p.root, "svelte/package.json"));
  let compiler = null;
  const svelte = async () => {
    compiler ??= await importPath((0, import_node_module.createRequire)((0, import_node_path.join)(findSvelte(), "package.json")).resolve("svelte/compiler"), "compileModule");
    return compiler;
  };
  const { aliases, config } = await kitAliases(p.root, log2);
  const extra = /* @__PURE__ */ new Set();
  if (config !== null) extra.add(config);
  const warn2 = (w) => log2(`svelte: ${w.filename ?? ""}: ${w.message}`);
  const overrides = overridePlugin(p.map, await declaredModules(p.map, esbuild));
  const plugin = {
    name: "reconcile-sim-svelte",
    setup(b) {
      b.onResolve({ filter: /^\$app\/environment$/ }, () => ({ path: "$app/environment", namespace: "reconcile-sim-shim" }));
      b.onLoad({ filter: /.*/, namespace: "reconcile-sim-shim" }, () => ({
        contents: "export const browser = true; export const dev = false; export const building = false; export const version = 'reconcile-sim';",
        loader: "js"
      }));
      b.onResolve({ filter: /^svelte(\/.*)?$/ }, async (args) => {
        if (args.pluginData?.svelte) return void 0;
        const result2 = await b.resolve(args.path, { kind: args.kind, resolveDir: findSvelte(), pluginData: { svelte: true } });
        return result2.errors.length > 0 ? { errors: result2.errors } : result2;
      });
      for (const [alias, target, fallback] of aliases) {
        const escaped = alias.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        b.onResolve({ filter: new RegExp(`^${escaped}(/.*)?$`) }, async (args) => {
          if (args.pluginData?.alias) return void 0;
          if (fallback) {
            const own = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { alias: true } });
            if (own.errors.length === 0) return own;
          }
          const rest = args.path.slice(alias.length);
          const result2 = await b.resolve(target + rest, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer });
          return result2.errors.length > 0 ? { errors: result2.errors } : result2;
        });
      }
      b.onLoad({ filter: /\.svelte\.(m?ts|m?js)$/ }, async (args) => {
        let source = (0, import_node_fs.readFileSync)(args.path, "utf8");
        if (/\.m?ts$/.test(args.path)) {
          source = (await esbuild.transform(source, { loader: "ts", sourcefile: args.path, target: "esnext", tsconfigRaw: TS_STRIP })).code;
        }
        const out = (await svelte()).compileModule(source, { filename: args.path, generate: "client", dev: false });
        out.warnings.forEach(warn2);
        return { contents: out.js.code, loader: "js", resolveDir: (0, import_node_path.dirname)(args.path) };
      });
      b.onLoad({ filter: /\.svelte$/ }, async (args) => {
        const out = (await svelte()).compile((0, import_node_fs.readFileSync)(args.path, "utf8"), {
          filename: args.path,
          generate: "client",
          dev: false,
          css: "injected"
        });
        out.warnings.forEach(warn2);
        return { contents: out.js.code, loader: "js", resolveDir: (0, import_node_path.dirname)(args.path) };
      });
    }
  };
  const q = JSON.stringify;
  const entry = [
    `import * as map from ${q(p.map)};`,
    p.store === void 0 ? "const store = undefined;" : `import * as store from ${q(p.store)};`,
    "export const factory = map.default;",
    "export { store };"
  ].join("\n");
  const result = await esbuild.build({
    stdin: { contents: entry, resolveDir: p.root, sourcefile: "reconcile-sim-entry.js", loader: "js" },
    absWorkingDir: p.root,
    bundle: true,
    write: false,
    format: "cjs",
    platform: "neutral",
    target: "node18",
    mainFields: ["browser", "module", "main"],
    conditions: ["browser", "production"],
    resolveExtensions: [".ts", ".mts", ".js", ".mjs", ".svelte.ts", ".svelte.js", ".json"],
    external: [...import_node_module.builtinModules, "node:*"],
    define: {
      "process.env.NODE_ENV": '"production"',
      "import.meta.env": q({ MODE: "production", DEV: false, PROD: true, SSR: false, BASE_URL: "/" })
    },
    metafile: true,
    logLevel: "silent",
    legalComments: "none",
    charset: "utf8",
    plugins: [overrides, plugin]
  });
  for (const w of result.warnings) {
    if (w.text.includes('"import.meta" is not available')) continue;
    log2(`esbuild: ${w.location ? `${w.location.file}:${w.location.line}: ` : ""}${w.text}`);
  }
  await esbuild.stop?.();
  const code = result.outputFiles[0].text;
  const inputs = new Set(extra);
  for (const input of Object.keys(result.metafile.inputs)) {
    const path = input.replace(/^[a-z-]+:/, "");
    if (input.startsWith("reconcile-sim-shim:") || path === "reconcile-sim-entry.js" || path === "<stdin>") continue;
    inputs.add((0, import_node_path.isAbsolute)(path) ? path : (0, import_node_path.resolve)(p.root, path));
  }
  for (const tsconfig of ["tsconfig.json", "jsconfig.json", (0, import_node_path.join)(".svelte-kit", "tsconfig.json")]) inputs.add((0, import_node_path.join)(p.root, tsconfig));
  return { code, inputs: [...inputs].sort() };
}
async function declaredModules(map, esbuild) {
  const source = (0, import_node_fs.readFileSync)(map, "utf8");
  if (!/\bexport\s+(const|let|var)\s+modules\b/.test(source)) return {};
  const js = (await esbuild.transform(source, { loader: map.endsWith(".js") || map.endsWith(".mjs") ? "js" : "ts", format: "cjs", sourcefile: map, tsconfigRaw: TS_STRIP })).code;
  const inert = new Proxy(function() {
  }, { get: (_t, k) => k === Symbol.toPrimitive ? () => "" : inert, apply: () => inert, construct: () => inert });
  const module2 = { exports: {} };
  try {
    new import_node_vm.default.Script(`(function (exports, require, module) {${js}
})`, { filename: map }).runInThisContext()(module2.exports, () => inert, module2);
  } catch (e) {
    throw new Error(`${map}: could not read \`export const modules\` (it must be a literal; evaluated with the imports stubbed): ${e.message}`);
  }
  const modules = module2.exports.modules;
  if (modules === null || typeof modules !== "object") throw new Error(`${map}: \`modules\` must be an object of specifier \u2192 stub`);
  for (const [k, v] of Object.entries(modules)) {
    if (typeof v !== "string" && (v === null || typeof v !== "object")) {
      throw new Error(`${map}: modules[${JSON.stringify(k)}] must be a stub file's path or an object of named exports`);
    }
  }
  return modules;
}
function overridePlugin(map, modules) {
  const keys = Object.keys(modules);
  return {
    name: "reconcile-sim-modules",
    setup(b) {
      if (keys.length === 0) return;
      const skip = { override: true };
      let targets = null;
      b.onStart(async () => {
        const out = /* @__PURE__ */ new Map();
        for (const key of keys) {
          const r = await b.resolve(key, { kind: "import-statement", resolveDir: (0, import_node_path.dirname)(map), pluginData: skip });
          if (r.errors.length === 0 && r.path !== "") out.set(r.path, key);
        }
        targets = out;
      });
      const stubs = new Set(keys.flatMap((k) => typeof modules[k] === "string" ? [(0, import_node_path.resolve)((0, import_node_path.dirname)(map), modules[k])] : []));
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData !== void 0 || args.kind === "entry-point") return void 0;
        if (stubs.has(args.importer) || targets === null) return void 0;
        let key = Object.hasOwn(modules, args.path) ? args.path : void 0;
        if (key === void 0) {
          const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: skip });
          if (r.errors.length > 0) return void 0;
          key = targets.get(r.path);
          if (key === void 0) return { ...r, pluginData: void 0 };
        }
        const stub = modules[key];
        if (typeof stub === "string") return { path: (0, import_node_path.resolve)((0, import_node_path.dirname)(map), stub) };
        return { path: key, namespace: "reconcile-sim-module" };
      });
      b.onLoad({ filter: /.*/, namespace: "reconcile-sim-module" }, (args) => ({ contents: JSON.stringify(modules[args.path]), loader: "json" }));
    }
  };
}
var CompiledBundle = class {
  constructor(b) {
    this.b = b;
    const cacheFile = b.file.replace(/\.cjs$/, ".v8");
    let cachedData;
    if (b.cached) {
      try {
        cachedData = (0, import_node_fs.readFileSync)(cacheFile);
      } catch {
        cachedData = void 0;
      }
    }
    this.script = new import_node_vm.default.Script(`(function (exports, require, module, __filename, __dirname) {${b.code}
})`, {
      filename: b.file,
      ...cachedData === void 0 ? {} : { cachedData }
    });
    this.codeCacheRejected = cachedData === void 0 || this.script.cachedDataRejected === true;
    this.require = (0, import_node_module.createRequire)(b.file);
  }
  b;
  script;
  require;
  codeCacheRejected;
  /** Keep V8's code cache (with what has been compiled so far) next to the bundle. */
  saveCodeCache(force = false) {
    if (!force && !this.codeCacheRejected) return;
    try {
      writeAtomic(this.b.file.replace(/\.cjs$/, ".v8"), this.script.createCachedData());
    } catch {
    }
  }
  evaluate() {
    const wrapper = this.script.runInThisContext();
    const module2 = { exports: {} };
    wrapper(module2.exports, this.require, module2, this.b.file, (0, import_node_path.dirname)(this.b.file));
    const factory = module2.exports.factory;
    if (typeof factory !== "function") {
      throw new Error("the mapping file must `export default` a factory: export default defineAdapter((harness) => ({ \u2026 }))");
    }
    return { factory, store: module2.exports.store };
  }
};
function boundFactory(evaluated) {
  return (harness) => evaluated.factory(harness, evaluated.store);
}

// src/determinism.ts
var import_node_module2 = require("node:module");
var EPOCH = 17040672e5;
var SEED = 2654435769;
var MAX_TIMER_RUNS = 1e4;
var realSetImmediate = globalThis.setImmediate;
var RealDate = Date;
var active = null;
var installed = false;
var swaps = [];
var faked = false;
function swap(target, key, value) {
  const real = Object.getOwnPropertyDescriptor(target, key);
  const fake = { value, writable: true, configurable: true, enumerable: real?.enumerable ?? false };
  swaps.push({ target, key, fake, real });
  Object.defineProperty(target, key, fake);
}
function restoreGlobals() {
  if (!faked) return;
  faked = false;
  for (let i = swaps.length - 1; i >= 0; i--) {
    const { target, key, real } = swaps[i];
    if (real === void 0) delete target[key];
    else Object.defineProperty(target, key, real);
  }
}
function replaceGlobals() {
  if (faked || !installed) return;
  faked = true;
  for (const { target, key, fake } of swaps) Object.defineProperty(target, key, fake);
}
var DeterministicWorld = class {
  now = EPOCH;
  uuids = 0;
  rng = SEED;
  timers = /* @__PURE__ */ new Map();
  nextTimer = 1;
  order = 0;
  /** What the runtime says is creating timers now (kept with each timer for state digests). */
  origin = () => "";
  reset() {
    this.now = EPOCH;
    this.uuids = 0;
    this.rng = SEED;
    this.timers.clear();
    this.nextTimer = 1;
    this.order = 0;
  }
  nextUuid() {
    this.uuids += 1;
    return `00000000-0000-4000-8000-${this.uuids.toString(16).padStart(12, "0")}`;
  }
  /** mulberry32 */
  random() {
    this.rng = this.rng + 1831565813 | 0;
    let t = this.rng;
    t = Math.imul(t ^ t >>> 15, t | 1);
    t ^= t + Math.imul(t ^ t >>> 7, t | 61);
    return ((t ^ t >>> 14) >>> 0) / 4294967296;
  }
  get pendingTimers() {
    return this.timers.size;
  }
  /** The pending timers as data, for state digests: [due - now, interval, origin] in run order. */
  timerState() {
    return [...this.timers.values()].sort((a, b) => a.due - b.due || a.order - b.order).map((t) => [t.due - this.now, t.interval, t.origin]);
  }
  addTimer(fn, delay, args, repeat) {
    if (typeof fn !== "function") throw new TypeError("timer callback is not a function");
    const ms = Math.max(0, Number(delay) || 0);
    const id = this.nextTimer++;
    this.timers.set(id, {
      due: this.now + ms,
      order: this.order++,
      fn,
      args,
      interval: repeat ? Math.max(1, ms) : null,
      origin: this.origin()
    });
    return id;
  }
  clearTimer(id) {
    if (typeof id === "number") this.timers.delete(id);
  }
  /** Is a pending timer due now (its time reached by the clock)? */
  hasDueTimer() {
    for (const t of this.timers.values()) if (t.due <= this.now) return true;
    return false;
  }
  /** Run the earliest pending timer (advancing the clock to it); false when none is pending. */
  runNextTimer() {
    let nextId = -1;
    let next;
    for (const [id, t] of this.timers) {
      if (next === void 0 || t.due < next.due || t.due === next.due && t.order < next.order) {
        next = t;
        nextId = id;
      }
    }
    if (next === void 0) return false;
    if (next.due > this.now) this.now = next.due;
    if (next.interval === null) {
      this.timers.delete(nextId);
    } else {
      next.due = this.now + next.interval;
      next.order = this.order++;
    }
    next.fn(...next.args);
    return true;
  }
  /** Make this the world the globals read (until another world is made active). */
  activate() {
    active = this;
  }
  /** Replace the globals a browser store may read (once per process), and make this world active. */
  install() {
    this.activate();
    if (installed) {
      replaceGlobals();
      return;
    }
    installed = true;
    faked = true;
    const g = globalThis;
    const cryptoObj = globalThis.crypto;
    if (cryptoObj !== void 0) {
      swap(cryptoObj, "randomUUID", () => active.nextUuid());
      swap(cryptoObj, "getRandomValues", (array) => {
        if (array !== null) {
          const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
          for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(active.random() * 256);
        }
        return array;
      });
    }
    const nodeCrypto = (0, import_node_module2.createRequire)(__importMetaUrl)("node:crypto");
    nodeCrypto.randomUUID = () => active.nextUuid();
    (0, import_node_module2.syncBuiltinESMExports)();
    swap(Math, "random", () => active.random());
    const VirtualDate = new Proxy(RealDate, {
      construct(target, args, newTarget) {
        return Reflect.construct(target, args.length === 0 ? [active.now] : args, newTarget);
      },
      apply() {
        return new RealDate(active.now).toString();
      },
      get(target, prop, receiver) {
        if (prop === "now") return () => active.now;
        return Reflect.get(target, prop, receiver);
      }
    });
    swap(g, "Date", VirtualDate);
    if (typeof globalThis.performance === "object" && globalThis.performance !== null) {
      swap(globalThis.performance, "now", () => active.now - EPOCH);
    }
    const resolved = Promise.resolve();
    swap(g, "queueMicrotask", (fn) => {
      if (typeof fn !== "function") throw new TypeError("queueMicrotask: callback is not a function");
      void resolved.then(fn);
    });
    swap(g, "setTimeout", (fn, delay, ...args) => active.addTimer(fn, delay, args, false));
    swap(g, "setInterval", (fn, delay, ...args) => active.addTimer(fn, delay, args, true));
    swap(g, "clearTimeout", (id) => active.clearTimer(id));
    swap(g, "clearInterval", (id) => active.clearTimer(id));
    swap(g, "requestAnimationFrame", (fn) => active.addTimer(() => fn(active.now - EPOCH), 16, [], false));
    swap(g, "cancelAnimationFrame", (id) => active.clearTimer(id));
    swap(
      g,
      "requestIdleCallback",
      (fn) => active.addTimer(() => fn({ didTimeout: false, timeRemaining: () => 0 }), 1, [], false)
    );
    swap(g, "cancelIdleCallback", (id) => active.clearTimer(id));
  }
};

// src/digest.ts
var import_node_module3 = require("node:module");
var crypto = null;
function canonicalJson(value) {
  const out = [];
  write(value, out, /* @__PURE__ */ new Set());
  return out.join("");
}
function write(v, out, seen) {
  if (v === null || v === void 0) {
    out.push("null");
    return;
  }
  switch (typeof v) {
    case "string":
      out.push(JSON.stringify(v));
      return;
    case "number":
      out.push(Number.isFinite(v) ? String(v) : JSON.stringify(String(v)));
      return;
    case "boolean":
      out.push(v ? "true" : "false");
      return;
    case "bigint":
      out.push(JSON.stringify(`${v}n`));
      return;
    case "function":
    case "symbol":
      throw new Error(`snapshot() returned a ${typeof v}: it must be plain data`);
  }
  const o = v;
  if (seen.has(o)) throw new Error("snapshot() returned a cyclic value");
  seen.add(o);
  if (Array.isArray(o)) {
    out.push("[");
    o.forEach((x, i) => {
      if (i > 0) out.push(",");
      write(x, out, seen);
    });
    out.push("]");
  } else if (o instanceof Map) {
    writeSorted([...o.entries()].map(([k, x]) => [JSON.stringify(canonicalJson(k)), x]), out, seen, "M");
  } else if (o instanceof Set) {
    const items = [...o].map((x) => canonicalJson(x)).sort();
    out.push(`{"S":[${items.join(",")}]}`);
  } else if (o instanceof Date) {
    out.push(JSON.stringify(o.toISOString()));
  } else {
    const toJSON = o.toJSON;
    if (typeof toJSON === "function") {
      seen.delete(o);
      write(toJSON.call(o), out, seen);
      return;
    }
    const entries = [];
    for (const k of Object.keys(o)) {
      const x = o[k];
      if (x !== void 0 && typeof x !== "function") entries.push([JSON.stringify(k), x]);
    }
    writeSorted(entries, out, seen, "");
  }
  seen.delete(o);
}
function writeSorted(entries, out, seen, tag) {
  entries.sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  out.push(tag === "" ? "{" : `{"${tag}":{`);
  entries.forEach(([k, x], i) => {
    if (i > 0) out.push(",");
    out.push(k, ":");
    write(x, out, seen);
  });
  out.push(tag === "" ? "}" : "}}");
}
function sha256(text) {
  crypto ??= (0, import_node_module3.createRequire)(__importMetaUrl)("node:crypto");
  return crypto.createHash("sha256").update(text).digest("hex");
}

// src/render.ts
var isRole = (r) => r === "user" || r === "assistant" || r === "tool-call" || r === "tool-result";
function partRole(part, messageRole, messageId) {
  const role = part.role;
  if (role !== void 0 && isRole(role)) return role;
  const kind = part.kind ?? part.type;
  if (kind === "tool-call" || kind === "tool-result") return kind;
  if (kind !== void 0 && isRole(kind)) return kind;
  if (isRole(messageRole)) return messageRole;
  throw new Error(`cannot tell the role of a part (${JSON.stringify(part)}) of message ${JSON.stringify(messageId)}`);
}
var textOf = (x) => {
  const text = x.text;
  return text !== void 0 ? text : x.content ?? "";
};
var asText = (v) => typeof v === "string" ? v : v === void 0 || v === null ? "" : JSON.stringify(v);
function expandToolBatch(part) {
  const calls = part.calls;
  if (!Array.isArray(calls)) return [part];
  const out = [];
  for (const c of calls) {
    const turnId = part.turnId;
    out.push({ kind: "tool-call", text: asText(c.input ?? c.args ?? c.text), turnId });
    const result = c.output ?? c.result;
    if (result !== void 0 && result !== null) out.push({ kind: "tool-result", text: asText(result), turnId });
  }
  return out;
}
function turnNumber(id, decode) {
  if (id === void 0 || id === null) return void 0;
  if (typeof id === "number") return id;
  if (decode !== void 0) return decode(id);
  if (typeof id === "string" && /^-?\d+$/.test(id)) return Number(id);
  throw new Error(`cannot read the turn id ${JSON.stringify(id)}: pass decodeTurnId (or declare network.codec.ids)`);
}
function allSeqs(parts) {
  if (parts === void 0 || parts.length === 0) return false;
  for (let i = 0; i < parts.length; i++) if (typeof parts[i].seq !== "number") return false;
  return true;
}
function flattenMessages(messages, options = {}) {
  const rows = [];
  const { isSealed, parts: partsOf, turnId: turnIdOf, id: idOf, expand = expandToolBatch } = options;
  for (const m of messages) {
    const own = partsOf !== void 0 ? partsOf(m) : m.parts;
    const parts = own === void 0 ? void 0 : own.flatMap((p) => expand(p));
    const t = turnIdOf !== void 0 ? turnIdOf(m) : m.turnId;
    const turnId = turnNumber(t, options.decodeTurnId);
    const seq = isSealed === void 0 ? m.seq : void 0;
    const role = m.role;
    if (isSealed !== void 0 ? isSealed(m) : typeof seq === "number" || allSeqs(parts)) {
      const sealedParts = parts !== void 0 && parts.length > 0 ? parts : [m];
      for (const p of sealedParts) rows.push(sealedRow(m, p, turnId, options));
      continue;
    }
    const id = idOf !== void 0 ? idOf(m) : m.id;
    if (typeof id !== "string") throw new Error(`a live message has no string id: ${JSON.stringify(m)}`);
    if (parts !== void 0 && parts.length > 0) {
      parts.forEach((p, i) => {
        const pt = p.turnId === void 0 ? turnId : turnNumber(p.turnId, options.decodeTurnId);
        rows.push(liveRow(i === 0 ? id : `${id}#${i}`, partRole(p, role, id), pt, textOf(p)));
      });
    } else {
      if (!isRole(role)) throw new Error(`live message ${JSON.stringify(id)} has no valid role: ${JSON.stringify(role)}`);
      rows.push(liveRow(id, role, turnId, textOf(m)));
    }
  }
  return rows;
}
function sealedRow(m, p, turnId, options) {
  const pt = p.turnId === void 0 || p.turnId === null ? turnId : turnNumber(p.turnId, options.decodeTurnId);
  const role = partRole(p, m.role, m.id);
  const text = textOf(p);
  if (typeof pt !== "number") throw new Error(`a sealed part of message ${JSON.stringify(m.id)} has no numeric turn id: ${JSON.stringify(p)}`);
  let seq = p.seq ?? m.seq;
  if (typeof seq !== "number" && options.seqOf !== void 0) seq = options.seqOf(pt, role, text);
  if (typeof seq !== "number") {
    const why = options.seqOf === void 0 ? "has no seq" : "matches no chunk row the store was given (turn, role and text)";
    throw new Error(`cannot place a sealed part of message ${JSON.stringify(m.id)}: turn ${pt} ${role} ${JSON.stringify(text)} ${why}`);
  }
  return { from: "sealed", seq, role, turn_id: pt, text };
}
function liveRow(id, role, turnId, text) {
  return turnId === void 0 || turnId === null ? { from: "live", id, role, text } : { from: "live", id, role, turn_id: turnId, text };
}
function renderProblem(rows) {
  if (!Array.isArray(rows)) return `render() must return an array of rows, got ${typeof rows}`;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const bad = (why) => `render row ${i} ${why}: ${JSON.stringify(r)}`;
    if (r === null || typeof r !== "object") return bad("is not an object");
    if (!isRole(r.role)) return bad("has no valid role");
    if (typeof r.text !== "string") return bad("has no string text");
    if (r.from === "sealed") {
      if (typeof r.seq !== "number") return bad("is sealed but has no numeric seq");
      if (typeof r.turn_id !== "number") return bad("is sealed but has no numeric turn_id");
    } else if (r.from === "live") {
      if (typeof r.id !== "string") return bad("is live but has no string id");
      if (r.turn_id !== void 0 && typeof r.turn_id !== "number") return bad("has a turn_id that is not a number");
    } else {
      return bad('has no from ("sealed" or "live")');
    }
  }
  return void 0;
}

// src/wire.ts
var PROTOCOL = 1;

// src/runtime.ts
var BOOT = "boot";
var isThenable = (x) => x !== null && (typeof x === "object" || typeof x === "function") && typeof x.then === "function";
var drain = () => new Promise((resolve2) => realSetImmediate(resolve2));
var Run = class {
  constructor(runtime, args) {
    this.runtime = runtime;
    this.ids = {
      toStore: (n) => this.byHarness.get(n) ?? `m${n}`,
      toHarness: (s) => this.byStore.get(s)
    };
    this.harness = {
      post: (storeId, text) => this.post(storeId, text),
      fetch: () => this.fetch(),
      ids: this.ids,
      args,
      flatten: (messages, options) => flattenMessages(messages, this.flattenOptions(options))
    };
  }
  runtime;
  mapping = null;
  /** The effects of the request being answered. */
  effects = [];
  errors = [];
  /** `user-send`s the store has not POSTed yet, oldest first. */
  pendingSends = [];
  posts = /* @__PURE__ */ new Map();
  /** POSTs that carried no id, oldest first: the backend mints their ids. */
  postsWithoutId = [];
  /** The open connections of the store's own WebSocket (with `network.socket`). */
  sockets = /* @__PURE__ */ new Set();
  /** The seqs of every chunk row handed to the store, by turn, role and text, ascending (for `Harness.flatten`). */
  seqs = /* @__PURE__ */ new Map();
  fetches = /* @__PURE__ */ new Map();
  nextRequest = 1;
  byHarness = /* @__PURE__ */ new Map();
  byStore = /* @__PURE__ */ new Map();
  translated = /* @__PURE__ */ new Map();
  /** The inputs since the reset, for the origins of pending promises (made canonical JSON only for a digest). */
  history = [];
  /** Where promises and timers created now come from (see `AdapterRuntime.digest`). */
  origin = BOOT;
  ids;
  harness;
  current(what) {
    if (this.runtime.run === this) return true;
    process.stderr.write(`reconcile-sim-adapter: ignored ${what} from a store of an earlier run
`);
    return false;
  }
  post(storeId, text) {
    if (!this.current("a POST")) return new Promise(() => {
    });
    if (typeof storeId !== "string" && typeof storeId !== "number") {
      this.errors.push(new Error(`post(storeId, text): storeId must be a string, got ${JSON.stringify(storeId)}`));
      return new Promise(() => {
      });
    }
    const key = String(storeId);
    const send = this.takeSend(text);
    if (send === void 0) {
      this.errors.push(new Error(`the store POSTed ${JSON.stringify(text)} (its id ${key}) but no user-send is waiting for a POST`));
      return new Promise(() => {
      });
    }
    this.byHarness.set(send.messageId, key);
    this.byStore.set(key, send.messageId);
    this.translated.clear();
    this.effects.push({ effect: "post", message_id: send.messageId, text: String(text) });
    return new Promise((resolve2) => this.posts.set(send.messageId, { resolve: resolve2, origin: this.origin }));
  }
  /** A POST without an id (`--world server_ids=true`): the `post` effect carries none, and the response the id the backend minted. */
  postWithoutId(text) {
    if (!this.current("a POST")) return new Promise(() => {
    });
    const send = this.takeSend(String(text));
    if (send === void 0) {
      this.fail(new Error(`the store POSTed ${JSON.stringify(text)} (without an id) but no user-send is waiting for a POST`));
      return new Promise(() => {
      });
    }
    this.effects.push({ effect: "post", text: String(text) });
    return new Promise((resolve2) => this.postsWithoutId.push({ resolve: resolve2, origin: this.origin }));
  }
  /** The pending user-send a POST of `text` answers: the oldest with that text, else the oldest. */
  takeSend(text) {
    let i = this.pendingSends.findIndex((s) => s.text === text);
    if (i < 0) i = 0;
    return this.pendingSends.splice(i, 1)[0];
  }
  fail(error2) {
    this.errors.push(error2);
  }
  /** A minted id's response: bind the id (the store's spelling: its decimal string) and resolve the oldest id-less POST. */
  resolveWithoutId(serverId, response) {
    const pending = this.postsWithoutId.shift();
    if (pending === void 0) return false;
    const storeId = String(serverId);
    this.byHarness.set(serverId, storeId);
    this.byStore.set(storeId, serverId);
    this.translated.clear();
    pending.resolve({ response, storeId });
    return true;
  }
  fetch() {
    if (!this.current("a fetch")) return new Promise(() => {
    });
    const requestId = this.nextRequest++;
    this.effects.push({ effect: "fetch", request_id: requestId });
    return new Promise((resolve2) => this.fetches.set(requestId, { resolve: resolve2, origin: this.origin }));
  }
  /** Keep a hook's result: a rejected promise is a crash of the store. */
  call(result) {
    if (isThenable(result)) result.then(void 0, (e) => this.errors.push(e));
  }
  appEvent(e, deltaPrefix) {
    switch (e.type) {
      case "turn-start":
      case "turn-sealed":
        return { type: e.type, turnId: e.turn_id };
      case "text-delta": {
        const text = deltaPrefix === "" ? e.text : deltaPrefix + e.text;
        return e.turn_id === void 0 ? { type: e.type, text } : { type: e.type, turnId: e.turn_id, text };
      }
      case "tool-call":
      case "tool-result":
        return { type: e.type, turnId: e.turn_id, call: e.call, text: e.text };
      case "message-queued": {
        const queued = { type: e.type, messageId: this.ids.toStore(e.message_id) };
        return e.text === void 0 ? queued : { ...queued, text: e.text };
      }
      case "message-consumed": {
        const consumed = { type: e.type, messageIds: e.message_ids.map((n) => this.ids.toStore(n)) };
        return e.reason === void 0 ? consumed : { ...consumed, reason: e.reason };
      }
      case "status":
        return { type: e.type, status: e.status };
      default:
        return this.otherEvent(e);
    }
  }
  /** An event kind this version does not know: camelCase its fields, bridge message ids. */
  otherEvent(e) {
    const other = e;
    const out = {};
    for (const k of Object.keys(other)) {
      const v = other[k];
      if (k === "message_id") out.messageId = this.ids.toStore(v);
      else if (k === "message_ids") out.messageIds = v.map((n) => this.ids.toStore(n));
      else out[camel(k)] = v;
    }
    return out;
  }
  appFetch(r) {
    for (const c of r.chunks) {
      const key = seqKey(c.turn_id, c.role, c.text);
      const seqs = this.seqs.get(key);
      if (seqs === void 0) this.seqs.set(key, [c.seq]);
      else if (!seqs.includes(c.seq)) {
        seqs.push(c.seq);
        seqs.sort((a, b) => a - b);
      }
    }
    return {
      requestId: r.request_id,
      snapshotSeq: r.snapshot_seq,
      chunks: r.chunks.map((c) => {
        const chunk = { seq: c.seq, turnId: c.turn_id, role: c.role, text: c.text };
        if (c.message_ids !== void 0) chunk.messageIds = c.message_ids.map((n) => this.ids.toStore(n));
        return chunk;
      }),
      writtenTurns: r.written_turns ?? []
    };
  }
  /**
   * The options of `Harness.flatten`: seqs recovered from the chunk rows handed out (the
   * n-th part of one turn, role and text in a render gets the n-th such row's seq), turn
   * ids read with the codec's spelling.
   */
  flattenOptions(options) {
    const used = /* @__PURE__ */ new Map();
    const decode = this.runtime.network?.codec.ids.decode;
    return {
      seqOf: (turnId, role, text) => {
        const key = seqKey(turnId, role, text);
        const seqs = this.seqs.get(key);
        if (seqs === void 0) return void 0;
        const n = used.get(key) ?? 0;
        used.set(key, n + 1);
        return seqs[Math.min(n, seqs.length - 1)];
      },
      ...decode === void 0 ? {} : { decodeTurnId: decode },
      ...options
    };
  }
  /** Live row ids holding a store message id (whole, or as a suffix: `queued-<id>`) get the harness's `m<n>`. */
  translate(rows) {
    if (this.byStore.size === 0) return rows;
    let out = rows;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (row.from !== "live") continue;
      let id = this.translated.get(row.id);
      if (id === void 0) {
        id = row.id;
        const n = this.byStore.get(id);
        if (n !== void 0) {
          id = `m${n}`;
        } else {
          for (const [storeId, m] of this.byStore) {
            if (storeId !== "" && id.endsWith(storeId)) {
              id = id.slice(0, id.length - storeId.length) + `m${m}`;
              break;
            }
          }
        }
        this.translated.set(row.id, id);
      }
      if (id !== row.id) {
        if (out === rows) out = rows.slice();
        out[i] = { ...row, id };
      }
    }
    return out;
  }
};
var seqKey = (turnId, role, text) => `${turnId}\0${role}\0${text}`;
var camelCache = /* @__PURE__ */ new Map();
function camel(k) {
  let c = camelCache.get(k);
  if (c === void 0) {
    c = k.replace(/_([a-z0-9])/g, (_, ch) => ch.toUpperCase());
    camelCache.set(k, c);
  }
  return c;
}
function describe(e) {
  if (e instanceof Error) return e.stack ?? `${e.name}: ${e.message}`;
  try {
    return typeof e === "string" ? e : JSON.stringify(e);
  } catch {
    return String(e);
  }
}
var activeRuntime = null;
var hooked = false;
var sharedNetwork = null;
var AdapterRuntime = class {
  world = new DeterministicWorld();
  run = null;
  greeted = false;
  factory = null;
  /** Set by the first `state` request: from then on origins are state digests, not histories. */
  trackOrigins = false;
  /** The digest answered last, while nothing has happened since. */
  lastDigest = null;
  deltaPrefix;
  /** Errors raised outside any request (reported with the next answer). */
  strayErrors = [];
  /**
   * The first run, made when `hello` is answered (to learn which extensions the mapping
   * speaks), with its `reset` answer: the first `reset` hands it out instead of making
   * another store. Nothing runs between the two (the clock is fake, every microtask ran),
   * so the answer is the one that `reset` would give.
   */
  prepared = null;
  options;
  constructor(options) {
    this.options = { ...options };
    this.deltaPrefix = options.deltaPrefix ?? "";
    this.world.origin = () => this.run === null ? BOOT : this.run.origin;
  }
  get network() {
    return this.options.network ?? null;
  }
  /**
   * Take a mapping's options (`defineAdapter(factory, options)`), after its module was
   * evaluated and before the first store is made: the name, the virtual clock, and the
   * network (whose interceptors are installed now).
   */
  async configure(options, name) {
    if (name !== void 0) this.options.name = name;
    if (options.translateIds === false) this.options.translateIds = false;
    if (options.clock !== void 0) this.options.clock = checkClock(options.clock);
    if (options.network !== void 0 && this.options.network == null) {
      if (sharedNetwork === null) {
        const { Network: Network2 } = await Promise.resolve().then(() => (init_network(), network_exports));
        const network = new Network2(options.network, () => activeRuntime?.run ?? null);
        await network.install();
        sharedNetwork = network;
      }
      this.options.network = sharedNetwork;
    }
  }
  /** The clock's choice as the `hello` answer states it. */
  clockSetting() {
    const clock = this.options.clock ?? {};
    if (clock.timers === "all") return "every pending timer runs after each input";
    return `timers run when due; the clock moves ${clock.stepMs ?? 0} ms per input`;
  }
  /** Install the deterministic globals and the error hooks. Call before loading the user's modules. */
  install() {
    activeRuntime = this;
    this.world.install();
    if (hooked) return;
    hooked = true;
    process.on("unhandledRejection", (reason) => activeRuntime?.recordError(reason));
    process.on("uncaughtException", (error2) => activeRuntime?.recordError(error2));
  }
  /** Make this the runtime (and its world) that the process-wide hooks and globals reach. */
  activate() {
    activeRuntime = this;
    this.world.activate();
    replaceGlobals();
  }
  /**
   * No runtime answers now: the real globals are put back and errors are no store's, until
   * a runtime answers again. For a host that runs other code in the same process between
   * commands (a test runner, with the engine inside Node).
   */
  static leave() {
    activeRuntime = null;
    restoreGlobals();
  }
  recordError(e) {
    if (this.run !== null) this.run.errors.push(e);
    else this.strayErrors.push(e);
  }
  /** The answer to one parsed request line. */
  respond(msg) {
    if (activeRuntime !== this) this.activate();
    if (msg === null || typeof msg !== "object") {
      return { type: "error", message: `request is not a JSON object: ${JSON.stringify(msg)}`, id: null };
    }
    const m = msg;
    const id = typeof m.id === "number" ? m.id : null;
    const fail = (message) => ({ type: "error", message, id });
    if (m.type === "hello") {
      if (m.protocol !== PROTOCOL) return fail(`unsupported protocol ${JSON.stringify(m.protocol)}; this adapter speaks ${PROTOCOL}`);
      this.greeted = true;
      return this.hello(id);
    }
    if (!this.greeted) return fail(`expected hello first, got ${JSON.stringify(m.type)}`);
    switch (m.type) {
      case "reset":
        return this.reset(id);
      case "input":
        if (this.run === null || this.run.mapping === null) return fail("input before reset");
        if (m.input === null || typeof m.input !== "object") return fail("input without an input object");
        return this.input(this.run, m.input, id);
      case "state":
        return this.state(id);
      default:
        return fail(`unknown request type ${JSON.stringify(m.type)}`);
    }
  }
  /**
   * The handshake. The extensions (docs/protocol.md, "Extensions") are announced for what
   * the mapping does, which only a store shows: so the first run's store is made now (see
   * `prepared`). `boot`: its `reset` answer carries effects (a `boot()` hook, or a factory
   * that fetches at once), which a harness routes only when announced. `state`: it has
   * `snapshot()`. A mapping that fails to make a store announces nothing; the first `reset`
   * reports why.
   */
  async hello(id) {
    this.prepared = null;
    const answer = await this.reset(null);
    const run = this.run;
    this.run = null;
    this.prepared = { run, answer };
    const features = [];
    if (answer.type === "reset" && (run.mapping?.boot !== void 0 || (answer.effects?.length ?? 0) > 0)) features.push("boot");
    if (answer.type === "reset" && run.mapping?.snapshot !== void 0) features.push("state");
    const clock = this.clockSetting();
    return { type: "hello", protocol: PROTOCOL, name: this.options.name, ...features.length > 0 ? { features } : {}, clock, id };
  }
  async reset(id) {
    const prepared = this.prepared;
    this.prepared = null;
    if (prepared !== null && this.strayErrors.length === 0) {
      this.run = prepared.run;
      return { ...prepared.answer, id };
    }
    this.lastDigest = null;
    this.world.reset();
    const run = new Run(this, this.options.args ?? []);
    this.run = run;
    run.errors.push(...this.strayErrors.splice(0));
    try {
      if (this.factory === null || this.options.freshModule) this.factory = this.options.load();
      const made = this.factory(run.harness);
      run.mapping = isThenable(made) ? await made : made;
      checkMapping(run.mapping, this.network?.hasSocket ?? false);
      const booted = run.mapping.boot !== void 0;
      if (booted) run.call(run.mapping.boot());
      await this.settle(run);
      if (run.errors.length > 0) return this.crash(run, id);
      if (!booted && run.effects.length === 0) return { type: "reset", id };
      return { type: "reset", effects: run.effects, render: this.render(run), id };
    } catch (e) {
      run.mapping = null;
      return { type: "error", message: describe(e), id };
    }
  }
  async input(run, input, id) {
    run.effects = [];
    try {
      this.beginInput(run, input);
      this.route(run, run.mapping, input);
      await this.settle(run);
      if (run.errors.length > 0) return this.crash(run, id);
      return { type: "output", effects: run.effects, render: this.render(run), id };
    } catch (e) {
      return { type: "error", message: describe(e), id };
    }
  }
  beginInput(run, input) {
    run.history.push(input);
    const clock = this.options.clock;
    if (clock?.timers !== "all" && clock?.stepMs) this.world.now += clock.stepMs;
    if (this.trackOrigins) {
      const before = this.lastDigest ?? this.digest(run);
      run.origin = `d:${sha256(`${before}
${canonicalJson(input)}`)}`;
    } else {
      run.origin = `h:${run.history.length}`;
    }
    this.lastDigest = null;
  }
  route(run, mapping, input) {
    switch (input.input) {
      case "user-send":
        run.pendingSends.push({ messageId: input.message_id, text: input.text });
        run.call(mapping.send(input.text, input.message_id));
        return;
      case "scroll":
        run.call(mapping.scroll(input.at_bottom));
        return;
      case "event": {
        const event = run.appEvent(input.event, this.deltaPrefix);
        if (mapping.event !== void 0) run.call(mapping.event(event, input.event));
        else this.network.deliver(run, event);
        return;
      }
      case "post-response": {
        const id = input.message_id;
        const pending = id === void 0 ? void 0 : run.posts.get(id);
        if (id !== void 0 && pending !== void 0) {
          run.posts.delete(id);
          pending.resolve(input.response);
        } else if (id === void 0 && input.server_id !== void 0 && run.resolveWithoutId(input.server_id, input.response)) {
        } else if (mapping.input !== void 0) {
          run.call(mapping.input(input));
        }
        return;
      }
      case "fetch-response": {
        const pending = run.fetches.get(input.request_id);
        if (pending !== void 0) {
          run.fetches.delete(input.request_id);
          pending.resolve(run.appFetch(input));
        } else if (mapping.input !== void 0) {
          run.call(mapping.input(input));
        }
        return;
      }
      default:
        if (mapping.input !== void 0) run.call(mapping.input(input));
        else throw new Error(`unknown input ${JSON.stringify(input.input)}`);
    }
  }
  /**
   * Let everything the request caused run: microtasks, then each fake timer that is due
   * (with `timers: "all"`, each pending one), in due order.
   */
  async settle(run) {
    const flush = run.mapping?.flush;
    const all = this.options.clock?.timers === "all";
    for (let timers = 0; ; timers++) {
      await drain();
      if (flush !== void 0) {
        flush.call(run.mapping);
        await drain();
      }
      if (all ? this.world.pendingTimers === 0 : !this.world.hasDueTimer()) return;
      if (timers >= MAX_TIMER_RUNS) {
        throw new Error(`timers kept firing: ${MAX_TIMER_RUNS} timer callbacks in one input (an interval that never stops?)`);
      }
      try {
        this.world.runNextTimer();
      } catch (e) {
        run.errors.push(e);
      }
    }
  }
  render(run) {
    const rows = run.mapping.render();
    const problem = renderProblem(rows);
    if (problem !== void 0) throw new Error(problem);
    return this.options.translateIds === false ? rows : run.translate(rows);
  }
  crash(run, id) {
    const message = run.errors.map(describe).join("\n--- and then:\n");
    run.errors = [];
    return { type: "error", message, id };
  }
  state(id) {
    const run = this.run;
    if (run === null || run.mapping === null) return { type: "error", message: "state before reset", id };
    if (run.mapping.snapshot === void 0) {
      return { type: "error", message: "state digests are not supported: the mapping has no snapshot()", id };
    }
    try {
      this.trackOrigins = true;
      const digest = this.lastDigest ?? this.digest(run);
      this.lastDigest = digest;
      return { type: "state", digest, id };
    } catch (e) {
      return { type: "error", message: describe(e), id };
    }
  }
  /**
   * The digest of everything that decides the run's future: the store's snapshot, and the
   * adapter's own state. A pending promise (or timer) resumes code whose local variables the
   * snapshot cannot see, so each carries its origin: the digest of the state before the
   * input that created it plus that input (or, before the harness first asked for a digest,
   * the whole input history up to it). Equal digests therefore mean equal futures.
   */
  digest(run) {
    const origin = (o) => o.startsWith("h:") ? sha256(run.history.slice(0, Number(o.slice(2))).map(canonicalJson).join("\n")) : o;
    const w = this.world;
    const adapter = {
      sends: run.pendingSends.map((s) => [s.messageId, s.text]),
      ids: [...run.byHarness].sort((a, b) => a[0] - b[0]),
      posts: [...run.posts].sort((a, b) => a[0] - b[0]).map(([n, p]) => [n, origin(p.origin)]),
      fetches: [...run.fetches].sort((a, b) => a[0] - b[0]).map(([n, p]) => [n, origin(p.origin)]),
      nextRequest: run.nextRequest,
      uuids: w.uuids,
      rng: w.rng,
      clock: w.now - EPOCH,
      timers: w.timerState().map((t) => {
        const [due, interval, o] = t;
        return [due, interval, origin(o)];
      })
    };
    return sha256(canonicalJson({ store: run.mapping.snapshot(), adapter }));
  }
};
function checkMapping(m, socket) {
  if (m === null || typeof m !== "object") throw new Error("the mapping's factory must return an object of hooks");
  for (const hook of ["send", "scroll", "render"]) {
    if (typeof m[hook] !== "function") throw new Error(`the mapping has no ${hook}() hook`);
  }
  if (typeof m.event !== "function" && !socket) {
    throw new Error("the mapping has no event() hook (and declares no network.socket to send events to)");
  }
}
function checkClock(clock) {
  const step = clock.stepMs ?? 0;
  if (typeof step !== "number" || !Number.isFinite(step) || step < 0) {
    throw new Error(`clock.stepMs must be a number of milliseconds >= 0, got ${JSON.stringify(clock.stepMs)}`);
  }
  if (clock.timers !== void 0 && clock.timers !== "due" && clock.timers !== "all") {
    throw new Error(`clock.timers must be "due" or "all", got ${JSON.stringify(clock.timers)}`);
  }
  return clock;
}

// src/host.ts
var Host = class _Host {
  constructor(bundle2, compiled, options) {
    this.bundle = bundle2;
    this.compiled = compiled;
    this.options = options;
  }
  bundle;
  compiled;
  options;
  /** Bundle the mapping (or take it from the cache). */
  static async load(options) {
    const b = await bundle(options.load);
    return new _Host(b, new CompiledBundle(b), options);
  }
  /**
   * A new adapter: its runtime, its deterministic globals installed (and made active)
   * before its copy of the app's modules is evaluated, and the mapping's options taken.
   */
  async open() {
    let first = null;
    const runtime = new AdapterRuntime({
      name: this.options.name ?? "",
      load: () => {
        const evaluated = first ?? this.compiled.evaluate();
        first = null;
        return boundFactory(evaluated);
      },
      freshModule: this.options.freshModule ?? false,
      args: this.options.args ?? [],
      deltaPrefix: this.options.deltaPrefix ?? ""
    });
    runtime.install();
    first = this.compiled.evaluate();
    const options = first.factory.options ?? {};
    await runtime.configure(options, this.options.name ?? options.name ?? `js:${(0, import_node_path2.basename)(this.options.load.map)}`);
    return runtime;
  }
  /**
   * The adapters are done for now: the process's real globals (timers, clock, random)
   * are back, and errors belong to no store. Any adapter's next answer puts its world back.
   */
  leave() {
    AdapterRuntime.leave();
  }
};

// src/serve.ts
var import_node_fs2 = require("node:fs");
function redirectConsole() {
  Object.defineProperty(process, "stdout", { get: () => process.stderr, configurable: true, enumerable: true });
}
function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
function writeAll(text) {
  let written = 0;
  try {
    written = (0, import_node_fs2.writeSync)(1, text);
  } catch (e) {
    if (e.code !== "EAGAIN") throw e;
  }
  const data = Buffer.from(text, "utf8");
  if (written === data.length) return;
  let off = written;
  while (off < data.length) {
    try {
      off += (0, import_node_fs2.writeSync)(1, data, off, data.length - off);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
      sleepMs(1);
    }
  }
}
var isPromise = (x) => x instanceof Promise;
async function serveStdio(respond) {
  const buf = Buffer.allocUnsafe(1 << 16);
  let rest = null;
  for (; ; ) {
    let n;
    try {
      n = (0, import_node_fs2.readSync)(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = e.code;
      if (code === "EAGAIN") {
        sleepMs(1);
        continue;
      }
      if (code === "EOF") return;
      throw e;
    }
    if (n === 0) return;
    const last = buf.lastIndexOf(10, n - 1);
    if (last === -1) {
      rest = rest === null ? Buffer.from(buf.subarray(0, n)) : Buffer.concat([rest, buf.subarray(0, n)]);
      continue;
    }
    const text = rest === null ? buf.toString("utf8", 0, last + 1) : Buffer.concat([rest, buf.subarray(0, last + 1)]).toString("utf8");
    rest = last + 1 < n ? Buffer.from(buf.subarray(last + 1, n)) : null;
    let out = "";
    let start = 0;
    let nl;
    while ((nl = text.indexOf("\n", start)) !== -1) {
      const line = text.slice(start, nl);
      start = nl + 1;
      if (line.trim() === "") continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch (e) {
        out += JSON.stringify({ type: "error", message: `request is not JSON: ${e.message}`, id: null }) + "\n";
        continue;
      }
      const a = respond(msg);
      const answer = isPromise(a) ? await a : a;
      out += JSON.stringify(answer) + "\n";
    }
    if (out !== "") writeAll(out);
  }
}

// src/cli.ts
var realNow = performance.now.bind(performance);
var USAGE = `usage:
  reconcile-sim-adapter [serve] [--map] MAPPING.ts [options] [-- ARGS\u2026]
  reconcile-sim-adapter build   [--map] MAPPING.ts [options]

Serves the exec protocol on stdin/stdout with the store the mapping file makes. The
mapping and everything it imports are bundled once (TypeScript stripped, .svelte.ts
modules compiled with Svelte's client runtime, $lib from svelte.config.js) and cached
under node_modules/.cache/reconcile-sim-adapter/; \`build\` fills that cache and exits.

  reconcile-sim fuzz --store exec:'reconcile-sim-adapter adapter.ts' --seeds 1000

options:
  --map FILE        the mapping file (or the first positional argument)
  --store FILE      a store module handed to the mapping's factory as its second argument
  --root DIR        the project root (default: nearest package.json above the mapping)
  --name NAME       the name in the hello answer (default: the mapping's, else js:<file>)
  --fresh-module    re-evaluate every user module on each reset (module-level singletons)
  --no-cache        rebuild the bundle even if the cached one is current
  --delta-prefix S  prepend S to every text-delta (compat for whitespace-splitting oracles;
                    also $RECONCILE_SIM_ADAPTER_DELTA_PREFIX)
  --timing          print the start-up time to stderr (also $RECONCILE_SIM_ADAPTER_TIMING=1)
  (env) RECONCILE_SIM_ADAPTER_STATS=PREFIX  write "requests cpu-ms wall-ms" to PREFIX.<pid> (every 500 requests)
  -- ARGS\u2026          passed to the mapping as harness.args
`;
function parse(argv) {
  const cli = {
    command: "serve",
    load: { map: "" },
    fresh: false,
    deltaPrefix: process.env.RECONCILE_SIM_ADAPTER_DELTA_PREFIX ?? "",
    timing: process.env.RECONCILE_SIM_ADAPTER_TIMING === "1",
    args: []
  };
  const rest = [...argv];
  if (rest[0] === "serve" || rest[0] === "build") cli.command = rest.shift();
  const value = (flag) => {
    const v = rest.shift();
    if (v === void 0) usage(`${flag} needs a value`);
    return v;
  };
  while (rest.length > 0) {
    const a = rest.shift();
    if (a === "--") {
      cli.args = rest.splice(0);
    } else if (a === "--map") cli.load.map = value(a);
    else if (a === "--store") cli.load.store = value(a);
    else if (a === "--root") cli.load.root = value(a);
    else if (a === "--name") cli.name = value(a);
    else if (a === "--fresh-module") cli.fresh = true;
    else if (a === "--no-cache") cli.load.noCache = true;
    else if (a === "--delta-prefix") cli.deltaPrefix = value(a);
    else if (a === "--timing") cli.timing = true;
    else if (a === "-h" || a === "--help") {
      process.stderr.write(USAGE);
      process.exit(0);
    } else if (a === "--version") {
      const pkg = JSON.parse((0, import_node_fs3.readFileSync)(new URL("../package.json", __importMetaUrl), "utf8"));
      process.stderr.write(`${pkg.version}
`);
      process.exit(0);
    } else if (!a.startsWith("-") && cli.load.map === "") cli.load.map = a;
    else usage(`unknown argument ${JSON.stringify(a)}`);
  }
  if (cli.load.map === "") usage("no mapping file");
  return cli;
}
function usage(problem) {
  process.stderr.write(`reconcile-sim-adapter: ${problem}

${USAGE}`);
  process.exit(2);
}
async function main() {
  const cli = parse(process.argv.slice(2));
  redirectConsole();
  const host = await Host.load({ load: cli.load, name: cli.name, freshModule: cli.fresh, args: cli.args, deltaPrefix: cli.deltaPrefix });
  const b = host.bundle;
  const compiled = host.compiled;
  const runtime = await host.open();
  if (cli.command === "build") {
    await runtime.respond({ type: "hello", protocol: 1, id: 1 });
    const answer = await runtime.respond({ type: "reset", id: 2 });
    if (answer.type === "error") throw new Error(`the mapping failed to make a store:
${answer.message}`);
    compiled.saveCodeCache(true);
    process.stderr.write(`${b.cached ? "cached" : "built"} ${b.file} (${b.code.length} bytes${b.inputs >= 0 ? `, ${b.inputs} inputs` : ""}) in ${b.ms.toFixed(0)} ms
`);
    process.exit(0);
  }
  if (cli.timing) {
    process.stderr.write(`reconcile-sim-adapter: ready in ${realNow().toFixed(1)} ms since process start (bundle ${b.cached ? "cached" : "built"}, ${b.ms.toFixed(1)} ms)
`);
  }
  let answered = 0;
  const stats = process.env.RECONCILE_SIM_ADAPTER_STATS ? `${process.env.RECONCILE_SIM_ADAPTER_STATS}.${process.pid}` : null;
  const writeStats = () => {
    const cpu = process.cpuUsage();
    (0, import_node_fs3.writeFileSync)(stats, `${answered} ${((cpu.user + cpu.system) / 1e3).toFixed(0)} ${realNow().toFixed(0)}
`);
  };
  if (stats !== null) process.on("exit", writeStats);
  await serveStdio((msg) => {
    if (stats !== null && answered % 500 === 0) writeStats();
    const answer = runtime.respond(msg);
    if (++answered === 3 && compiled.codeCacheRejected) compiled.saveCodeCache();
    return answer;
  });
  process.exit(0);
}
main().catch((e) => {
  process.stderr.write(`reconcile-sim-adapter: ${e?.stack ?? String(e)}
`);
  process.exit(1);
});
