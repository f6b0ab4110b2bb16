// The JSON-RPC client below is the same in every TypeScript file rpcgen
// writes: messages, the Transport interface and its HTTP implementation,
// per-call options, batches and the errors calls throw.

/** A JSON-RPC 2.0 request, or a notification when it has no id. */
export interface JSONRPCRequest {
  jsonrpc: "2.0";
  id?: number | string;
  method: string;
  params?: unknown;
}

/** A JSON-RPC 2.0 error object: code, message and optional data. */
export interface JSONRPCErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A JSON-RPC 2.0 response to the request with its id: a result or an error. */
export interface JSONRPCResponse {
  jsonrpc: "2.0";
  id: number | string | null;
  result?: unknown;
  error?: JSONRPCErrorObject;
}

/** The part of an AbortSignal the client uses; the global AbortSignal is one. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** What a Transport gets with each message besides the message. */
export interface ExchangeOptions {
  /**
   * Aborted when the caller gives up (its AbortSignal, or its timeout): the
   * transport stops the exchange and tells the server if it can. HTTP
   * closes the request, and the server cancels the handler's context.
   */
  signal?: AbortSignalLike | undefined;
  /** Headers for this exchange, on a transport that has headers (HTTP). */
  headers?: Record<string, string> | undefined;
  /**
   * Receives the messages the server sends for this exchange before its
   * answer: notifications tied to the call, such as a stream's items. A
   * transport that cannot carry them never calls it.
   */
  onMessage?: ((message: JSONRPCRequest) => void) | undefined;
}

/**
 * Transport carries JSON-RPC messages between a JSONRPCClient and a server.
 * exchange sends one message (a request, a notification, or a batch: an
 * array of them) and resolves with its answer: the response to a request,
 * the responses to a batch's requests (matched by id, in any order), or
 * undefined when nothing answers (notifications). A transport that keeps a
 * connection open (a WebSocket) matches responses to requests by id itself
 * and hands the other messages tied to a call to options.onMessage.
 *
 * exchange rejects with a TransportError when the message cannot be
 * delivered or the reply is not JSON-RPC, and stops when options.signal is
 * aborted (the client then throws a CancelledError, whatever the transport
 * rejected with).
 */
export interface Transport {
  exchange(
    message: JSONRPCRequest | JSONRPCRequest[],
    options: ExchangeOptions,
  ): Promise<JSONRPCResponse | JSONRPCResponse[] | undefined>;
  /** Releases what the transport holds (a connection); optional. */
  close?(): void | Promise<void>;
}

/**
 * RPCError is a JSON-RPC error response, as the client methods throw it:
 * the error's code, message and data. A declared error of the method is
 * thrown as its own subclass (see the service's error classes).
 */
export class RPCError extends Error {
  /** The error code; ErrorCode names the ones JSON-RPC 2.0 defines. */
  readonly code: number;
  /** The error's data, undefined when it has none. */
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RPCError";
    this.code = code;
    this.data = data;
  }
}

/**
 * TransportError is a call that got no JSON-RPC answer: the network failed,
 * the server answered with an HTTP error and no JSON-RPC error, or the reply
 * is not JSON-RPC. The server may or may not have run the call.
 */
export class TransportError extends Error {
  /** The HTTP status of the reply, undefined when there was none. */
  readonly status: number | undefined;

  constructor(message: string, options: { status?: number | undefined; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TransportError";
    this.status = options.status;
  }
}

/**
 * CancelledError is a call its caller gave up on: its AbortSignal was
 * aborted (reason is the signal's reason), or, as a TimeoutError, its
 * timeout passed. The client stopped waiting and the transport told the
 * server where it could.
 */
export class CancelledError extends Error {
  /** The signal's reason, or the TimeoutError itself. */
  readonly reason: unknown;

  constructor(message: string, reason?: unknown) {
    super(message);
    this.name = "CancelledError";
    this.reason = reason;
  }
}

/** TimeoutError is a call cancelled because its timeout passed. */
export class TimeoutError extends CancelledError {
  /** The timeout, in milliseconds. */
  readonly timeout: number;

  constructor(message: string, timeout: number) {
    super(message);
    this.name = "TimeoutError";
    this.timeout = timeout;
  }
}

/**
 * The error codes JSON-RPC 2.0 defines, and ServerError, the code rpcgen's
 * servers answer an implementation's plain error with.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ServerError: -32000,
} as const;

/** The error classes of a method's declared errors, by code. */
export type ErrorClasses = Readonly<Record<number, new (message: string, data: unknown) => RPCError>>;

/**
 * The part of the Fetch API the client uses; globalThis.fetch is one. The
 * signal is the AbortSignalLike of ExchangeOptions, typed any so that the
 * global fetch, whose RequestInit wants the DOM's AbortSignal, is a Fetch.
 */
export type Fetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string; signal?: any },
) => Promise<{ ok: boolean; status: number; text(): Promise<string> }>;

/** HTTPOptions configure an HTTPTransport. */
export interface HTTPOptions {
  /** The function requests are sent with; globalThis.fetch when absent. */
  fetch?: Fetch | undefined;
  /** Headers sent with every request, e.g. Authorization. */
  headers?: Record<string, string> | undefined;
}

/**
 * HTTPTransport sends each message in an HTTP POST of its own to one URL
 * and reads the reply from the response body (rpcgen's runtime/rpchttp,
 * or any JSON-RPC over HTTP server). Aborting a call aborts its request.
 */
export class HTTPTransport implements Transport {
  readonly url: string;
  readonly #fetch: Fetch;
  readonly #headers: Record<string, string>;

  constructor(url: string, options: HTTPOptions = {}) {
    const f = options.fetch ?? globals.fetch;
    if (typeof f !== "function") {
      throw new Error("HTTPTransport: there is no global fetch; pass options.fetch");
    }
    this.url = url;
    this.#fetch = f as Fetch;
    this.#headers = { ...options.headers };
  }

  async exchange(
    message: JSONRPCRequest | JSONRPCRequest[],
    options: ExchangeOptions,
  ): Promise<JSONRPCResponse | JSONRPCResponse[] | undefined> {
    const headers = { ...this.#headers, ...options.headers, "Content-Type": "application/json" };
    let status = 0;
    let text: string;
    try {
      const init = { method: "POST", headers, body: JSON.stringify(message), signal: options.signal };
      const res = await this.#fetch(this.url, init);
      status = res.status;
      text = await res.text();
      if (text.trim() === "") {
        if (!res.ok) {
          throw new TransportError(`HTTP status ${status}`, { status });
        }
        return undefined;
      }
    } catch (err) {
      if (err instanceof TransportError) {
        throw err;
      }
      throw new TransportError(`POST ${this.url}: ${describe(err)}`, { status: status || undefined, cause: err });
    }
    try {
      return JSON.parse(text) as JSONRPCResponse | JSONRPCResponse[];
    } catch (err) {
      throw new TransportError(`HTTP status ${status}, not JSON: ${text.slice(0, 200)}`, { status, cause: err });
    }
  }
}

/** ClientOptions configure a JSONRPCClient. */
export interface ClientOptions extends HTTPOptions {
  /** Milliseconds each call may take unless its CallOptions say otherwise; 0 or absent: no limit. */
  timeout?: number | undefined;
}

/** CallOptions are the options of one call, the last argument of every client method. */
export interface CallOptions {
  /** Cancels the call when aborted: it rejects with a CancelledError. */
  signal?: AbortSignalLike | undefined;
  /** Milliseconds the call may take, then it rejects with a TimeoutError; 0: no limit. */
  timeout?: number | undefined;
  /** Headers for this call, on top of the client's (HTTP). */
  headers?: Record<string, string> | undefined;
  /**
   * Adds the call to batch instead of sending it: it settles when the
   * batch is sent and answered. signal, timeout and headers are then the
   * batch's, given to Batch.send.
   */
  batch?: Batch | undefined;
}

/** BatchOptions are the options of Batch.send: CallOptions but batch. */
export type BatchOptions = Omit<CallOptions, "batch">;

// A batched call: its message, how to settle its promise, and which client
// it goes through.
interface BatchEntry {
  client: JSONRPCClient;
  message: JSONRPCRequest;
  settle: (response: JSONRPCResponse | undefined, failure?: Error) => void;
}

// The calls of each batch not sent yet; undefined once sent.
const batches = new WeakMap<Batch, BatchEntry[] | undefined>();

/**
 * Batch collects calls (given { batch } in their CallOptions) and sends
 * them as one JSON-RPC batch: one HTTP request. Each call's promise settles
 * with its own result or error once send has the answer.
 *
 *     const batch = new Batch();
 *     const sum = calc.add(2, 3, { batch });
 *     const quotient = calc.divide(1, 0, { batch });
 *     await batch.send();
 *     console.log(await sum); // quotient rejects with the server's error
 */
export class Batch {
  constructor() {
    batches.set(this, []);
  }

  /** The number of calls added and not sent. */
  get size(): number {
    return batches.get(this)?.length ?? 0;
  }

  /**
   * send sends the calls and settles each. It resolves once every call has
   * settled, and rejects only when the exchange itself failed (a
   * TransportError or CancelledError, which every call rejects with too).
   * A batch is sent once; its calls must share one JSONRPCClient.
   */
  async send(options: BatchOptions = {}): Promise<void> {
    const entries = batches.get(this);
    if (entries === undefined) {
      throw new Error("Batch.send: the batch was already sent");
    }
    batches.set(this, undefined);
    const [first] = entries;
    if (first === undefined) {
      return;
    }
    const client = first.client;
    if (entries.some((e) => e.client !== client)) {
      const err = new Error("Batch.send: the calls of a batch must go through one JSONRPCClient");
      entries.forEach((e) => e.settle(undefined, err));
      throw err;
    }
    let reply: JSONRPCResponse | JSONRPCResponse[] | undefined;
    try {
      reply = await client.exchange(entries.map((e) => e.message), options, "batch");
    } catch (err) {
      entries.forEach((e) => e.settle(undefined, err as Error));
      throw err;
    }
    const byID = new Map<unknown, JSONRPCResponse>();
    let whole: JSONRPCResponse | undefined;
    if (Array.isArray(reply)) {
      for (const r of reply) {
        if (isObject(r)) byID.set(r.id, r);
      }
    } else if (isObject(reply)) {
      whole = reply; // the server refused the batch as a whole
    }
    for (const e of entries) {
      if (e.message.id === undefined) {
        e.settle(undefined);
      } else {
        const r = byID.get(e.message.id) ?? whole;
        e.settle(r, r === undefined ? new TransportError(`${e.message.method}: the batch's reply has no response to request ${e.message.id}`) : undefined);
      }
    }
  }
}

/**
 * JSONRPCClient sends JSON-RPC 2.0 requests and notifications through a
 * Transport: by default an HTTPTransport to a URL. The service clients above
 * use one, which several may share; it can also call a method by name.
 */
export class JSONRPCClient {
  readonly transport: Transport;
  readonly #timeout: number;
  #nextID = 1;

  constructor(target: string | Transport, options: ClientOptions = {}) {
    this.transport = typeof target === "string" ? new HTTPTransport(target, options) : target;
    this.#timeout = options.timeout ?? 0;
  }

  /**
   * call sends a request and returns its result. An error response is
   * thrown as an RPCError (as the class errors names for its code, if it
   * does), a failed exchange as a TransportError, a cancelled call as a
   * CancelledError.
   */
  async call<R>(method: string, params?: unknown, options: CallOptions = {}, errors?: ErrorClasses): Promise<R> {
    const id = this.#nextID++;
    const message: JSONRPCRequest = { jsonrpc: "2.0", id, method, params };
    const response = options.batch
      ? await this.#batched(options.batch, message)
      : await this.exchange(message, options, method);
    if (!isObject(response) || Array.isArray(response)) {
      throw new TransportError(`${method}: the server sent no response object`);
    }
    const { error } = response;
    if (error !== undefined) {
      if (!isObject(error) || typeof error.code !== "number" || typeof error.message !== "string") {
        throw new TransportError(`${method}: the server sent a malformed error object`);
      }
      const cls = errors?.[error.code];
      throw cls ? new cls(error.message, error.data) : new RPCError(error.code, error.message, error.data);
    }
    if (response.id !== id) {
      throw new TransportError(`${method}: the response is not for request ${id}`);
    }
    return response.result as R;
  }

  /** notify sends a notification: the server answers nothing, not even an error. */
  async notify(method: string, params?: unknown, options: CallOptions = {}): Promise<void> {
    const message: JSONRPCRequest = { jsonrpc: "2.0", method, params };
    if (options.batch) {
      await this.#batched(options.batch, message);
    } else {
      await this.exchange(message, options, method);
    }
  }

  /**
   * exchange sends message through the transport with the options of a
   * call (signal, timeout, headers; batch is ignored) and returns the
   * transport's answer; label names the call in errors.
   */
  async exchange(
    message: JSONRPCRequest | JSONRPCRequest[],
    options: CallOptions & Pick<ExchangeOptions, "onMessage"> = {},
    label = Array.isArray(message) ? "batch" : message.method,
  ): Promise<JSONRPCResponse | JSONRPCResponse[] | undefined> {
    const outer = options.signal;
    if (outer?.aborted) {
      throw new CancelledError(`${label}: cancelled`, outer.reason);
    }
    const timeout = options.timeout ?? this.#timeout;
    const controller = globals.AbortController && (outer || timeout > 0) ? new globals.AbortController() : undefined;
    let cancelled: CancelledError | undefined;
    let stop: (err: CancelledError) => void = () => {};
    const stopped = new Promise<never>((_, reject) => (stop = reject));
    const cancel = (err: CancelledError) => {
      if (cancelled === undefined) {
        cancelled = err;
        controller?.abort(err);
        stop(err);
      }
    };
    const onAbort = () => cancel(new CancelledError(`${label}: cancelled`, outer?.reason));
    outer?.addEventListener("abort", onAbort, { once: true });
    const timer = timeout > 0 ? globals.setTimeout(() => cancel(new TimeoutError(`${label}: no answer within ${timeout} ms`, timeout)), timeout) : undefined;
    try {
      const exchanged = this.transport.exchange(message, { signal: controller?.signal, headers: options.headers, onMessage: options.onMessage });
      return await Promise.race([exchanged, stopped]);
    } catch (err) {
      if (cancelled !== undefined) {
        throw cancelled;
      }
      if (err instanceof TransportError) {
        throw err;
      }
      throw new TransportError(`${label}: ${describe(err)}`, { cause: err });
    } finally {
      outer?.removeEventListener("abort", onAbort);
      if (timer !== undefined) {
        globals.clearTimeout(timer);
      }
    }
  }

  /** close closes the transport. */
  async close(): Promise<void> {
    await this.transport.close?.();
  }

  #batched(batch: Batch, message: JSONRPCRequest): Promise<JSONRPCResponse | undefined> {
    const entries = batches.get(batch);
    if (entries === undefined) {
      return Promise.reject(new Error(`${message.method}: the batch was already sent`));
    }
    return new Promise((resolve, reject) => {
      entries.push({ client: this, message, settle: (r, failure) => (failure ? reject(failure) : resolve(r)) });
    });
  }
}

// The globals the client uses, typed here: the client compiles against the
// ES2022 library alone, which declares none of them.
const globals = globalThis as unknown as {
  fetch?: unknown;
  AbortController?: new () => { readonly signal: AbortSignalLike; abort(reason?: unknown): void };
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === "object" && v !== null;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
