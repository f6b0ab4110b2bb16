// The JSON-RPC client rpcgen's TypeScript clients call through: messages,
// the Transport interface and its HTTP and WebSocket implementations,
// per-call options, batches and the errors calls throw. rpcgen writes this
// module once beside the clients it generates (or where --ts-runtime says),
// and every client imports and re-exports it, so that the clients of an
// application share one RPCError, one JSONRPCClient and one Batch. It
// imports nothing and compiles against the ES2022 library alone.

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
   * transport that cannot carry them never calls it. A promise it returns
   * says when the message was taken: a transport with flow control (a
   * stream's credits over WebSocket, reading the body over HTTP) lets the
   * server send more only as these settle.
   */
  onMessage?: ((message: JSONRPCRequest) => void | Promise<void>) | undefined;
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
) => Promise<{ ok: boolean; status: number; text(): Promise<string>; headers?: HeadersLike; body?: BodyLike | null }>;

/** The part of a response's Headers the client reads. */
export interface HeadersLike {
  get(name: string): string | null;
}

/** The part of a response's body stream the client reads: a stream's events. */
export interface BodyLike {
  getReader(): {
    read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
    cancel(reason?: unknown): Promise<void>;
  };
}

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

  #stream(message: JSONRPCRequest, headers: Record<string, string>, options: ExchangeOptions): Promise<JSONRPCResponse | undefined> {
    return streamExchange(this.#fetch, this.url, message, headers, options);
  }

  constructor(url: string, options: HTTPOptions = {}) {
    const f = options.fetch ?? globals.fetch;
    if (typeof f !== "function") {
      throw new Error("HTTPTransport: there is no global fetch; pass options.fetch");
    }
    this.url = url;
    // Called as a plain function, never as a method of this transport: a
    // browser's fetch refuses any receiver but the window ("Illegal
    // invocation").
    const call = f as Fetch;
    this.#fetch = (...args: Parameters<Fetch>) => call(...args);
    this.#headers = { ...options.headers };
  }

  async exchange(
    message: JSONRPCRequest | JSONRPCRequest[],
    options: ExchangeOptions,
  ): Promise<JSONRPCResponse | JSONRPCResponse[] | undefined> {
    const headers = { ...this.#headers, ...options.headers, "Content-Type": "application/json" };
    if (options.onMessage && !Array.isArray(message) && message.id !== undefined) {
      return this.#stream(message, headers, options);
    }
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

/**
 * streamExchange POSTs a stream method's request accepting an event stream:
 * each event is a message, the stream's items and then the response. The
 * next event is read only once onMessage's promise settles, so a caller that
 * takes items slowly slows the server. A server that answers with JSON (an
 * array result, say) is read as exchange reads it.
 */
async function streamExchange(
  f: Fetch,
  url: string,
  message: JSONRPCRequest,
  headers: Record<string, string>,
  options: ExchangeOptions,
): Promise<JSONRPCResponse | undefined> {
  let status = 0;
  try {
    const init = { method: "POST", headers: { ...headers, Accept: "text/event-stream, application/json" }, body: JSON.stringify(message), signal: options.signal };
    const res = await f(url, init);
    status = res.status;
    const type = res.headers?.get("content-type") ?? "";
    if (!res.ok || !type.startsWith("text/event-stream") || !res.body) {
      const text = await res.text();
      if (text.trim() === "") {
        throw new TransportError(`HTTP status ${status}`, { status });
      }
      return JSON.parse(text) as JSONRPCResponse;
    }
    const reader = res.body.getReader();
    for await (const data of sseData(reader)) {
      const m = JSON.parse(data) as JSONRPCRequest & JSONRPCResponse;
      if (typeof m.method === "string") {
        await options.onMessage?.(m);
      } else if (m.id === message.id) {
        await reader.cancel().catch(() => {});
        return m;
      }
    }
    throw new TransportError(`POST ${url}: the event stream ended before its response`, { status });
  } catch (err) {
    if (err instanceof TransportError) {
      throw err;
    }
    throw new TransportError(`POST ${url}: ${describe(err)}`, { status: status || undefined, cause: err });
  }
}

/** sseData yields the data of each event of a Server-Sent Events body. */
async function* sseData(reader: ReturnType<BodyLike["getReader"]>): AsyncGenerator<string, void, undefined> {
  const TD = globals.TextDecoder;
  if (!TD) {
    throw new Error("there is no global TextDecoder");
  }
  const decoder = new TD();
  let text = "";
  let data: string[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    text += done ? decoder.decode() : decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = text.search(/\r\n|\r|\n/)) >= 0) {
      const line = text.slice(0, nl);
      text = text.slice(nl + (text.startsWith("\r\n", nl) ? 2 : 1));
      if (line === "") {
        if (data.length > 0) yield data.join("\n");
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
      }
    }
    if (done) {
      return;
    }
  }
}

/** The part of the WebSocket API the client uses; browsers' and Node's WebSocket have it. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code?: number; reason?: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

/** A WebSocket constructor: globalThis.WebSocket, or one from a library. */
export type WebSocketClass = new (url: string) => WebSocketLike;

/** WebSocketOptions configure a WebSocketTransport. */
export interface WebSocketOptions {
  /**
   * The WebSocket class; globalThis.WebSocket when absent (browsers, Node 22,
   * Node 20 with --experimental-websocket).
   */
  WebSocket?: WebSocketClass | undefined;
  /** Items a stream's server may send ahead of what the caller took (default 128). */
  window?: number | undefined;
}

// A call waiting for its response on a WebSocket.
interface WSPending {
  resolve: (response: JSONRPCResponse) => void;
  reject: (err: Error) => void;
  onMessage?: ((message: JSONRPCRequest) => void | Promise<void>) | undefined;
  taken: number; // a stream's items taken since its last credit
}

/**
 * WebSocketTransport carries the client's messages over one WebSocket to an
 * rpcgen server (ext/websocket) or any JSON-RPC server that takes one
 * message or batch per text frame. It connects at the first exchange, and
 * again at the next one after the connection dropped; a call in flight when
 * it drops rejects with a TransportError (it may or may not have run).
 * Streams get flow control: the server may send window items ahead, and more
 * as the caller takes them ($/stream.credit). An aborted call or stream is
 * cancelled on the server ($/stream.cancel).
 */
export class WebSocketTransport implements Transport {
  readonly url: string;
  readonly #class: WebSocketClass;
  readonly #window: number;
  #socket: Promise<WebSocketLike> | undefined;
  readonly #pending = new Map<number | string, WSPending>();

  constructor(url: string, options: WebSocketOptions = {}) {
    const c = options.WebSocket ?? globals.WebSocket;
    if (typeof c !== "function") {
      throw new Error("WebSocketTransport: there is no global WebSocket; pass options.WebSocket");
    }
    this.url = url;
    this.#class = c;
    this.#window = Math.max(2, options.window ?? 128);
  }

  #connect(): Promise<WebSocketLike> {
    if (this.#socket) {
      return this.#socket;
    }
    const socket = new Promise<WebSocketLike>((resolve, reject) => {
      const ws = new this.#class(this.url);
      ws.onopen = () => resolve(ws);
      ws.onerror = () => reject(new TransportError(`WebSocket ${this.url}: cannot connect`));
      ws.onmessage = (ev) => this.#receive(ws, ev.data);
      ws.onclose = (ev) => {
        this.#socket = undefined;
        reject(new TransportError(`WebSocket ${this.url}: closed while connecting`));
        const err = new TransportError(`WebSocket ${this.url}: the connection closed (${ev.code ?? "no code"}${ev.reason ? ": " + ev.reason : ""}) with the call in flight; it may or may not have run`);
        for (const p of this.#pending.values()) p.reject(err);
        this.#pending.clear();
      };
    });
    this.#socket = socket;
    socket.catch(() => {
      if (this.#socket === socket) this.#socket = undefined;
    });
    return socket;
  }

  #receive(ws: WebSocketLike, data: unknown): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(data));
    } catch {
      return;
    }
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      if (!isObject(m)) continue;
      if (typeof m["method"] === "string") {
        const params = m["params"];
        const p = isObject(params) ? this.#pending.get(params["id"]) : undefined;
        if (m["id"] !== undefined) {
          // A request of the server's: this client serves none.
          ws.send(JSON.stringify({ jsonrpc: "2.0", id: m["id"], error: { code: ErrorCode.MethodNotFound, message: "Method not found" } }));
        } else if (p?.onMessage && isObject(params)) {
          this.#deliver(ws, params["id"], p, m as JSONRPCRequest);
        }
        continue;
      }
      const p = this.#pending.get(m["id"]);
      if (p) {
        this.#pending.delete(m["id"]);
        p.resolve(m as JSONRPCResponse);
      }
    }
  }

  // deliver hands a stream's item to its caller and grants the server more
  // once half the window has been taken.
  #deliver(ws: WebSocketLike, id: unknown, p: WSPending, m: JSONRPCRequest): void {
    const took = () => {
      if (++p.taken >= this.#window / 2 && this.#pending.get(id as number | string) === p) {
        ws.send(JSON.stringify({ jsonrpc: "2.0", method: "$/stream.credit", params: { id, n: p.taken } }));
        p.taken = 0;
      }
    };
    Promise.resolve(p.onMessage?.(m)).then(took, took);
  }

  async exchange(
    message: JSONRPCRequest | JSONRPCRequest[],
    options: ExchangeOptions,
  ): Promise<JSONRPCResponse | JSONRPCResponse[] | undefined> {
    const ws = await this.#connect();
    const list = Array.isArray(message) ? message : [message];
    const ids = list.flatMap((m) => (m.id === undefined ? [] : [m.id]));
    const stream = !Array.isArray(message) && message.id !== undefined && options.onMessage !== undefined;
    const answers = ids.map(
      (id) =>
        new Promise<JSONRPCResponse>((resolve, reject) => {
          this.#pending.set(id, { resolve, reject, onMessage: stream ? options.onMessage : undefined, taken: 0 });
        }),
    );
    const onAbort = () => {
      for (const id of ids) {
        const p = this.#pending.get(id);
        if (p) {
          this.#pending.delete(id);
          ws.send(JSON.stringify({ jsonrpc: "2.0", method: "$/stream.cancel", params: { id } }));
          p.reject(new TransportError("cancelled"));
        }
      }
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (stream) {
        ws.send(JSON.stringify({ jsonrpc: "2.0", method: "$/stream.credit", params: { id: ids[0], n: this.#window } }));
      }
      ws.send(JSON.stringify(message));
      if (ids.length === 0) {
        return undefined;
      }
      const responses = await Promise.all(answers);
      return Array.isArray(message) ? responses : responses[0];
    } catch (err) {
      for (const id of ids) this.#pending.delete(id);
      if (err instanceof TransportError) throw err;
      throw new TransportError(`WebSocket ${this.url}: ${describe(err)}`, { cause: err });
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** close closes the connection; calls in flight reject. */
  close(): void {
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.then((ws) => ws.close(1000), () => {});
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
 * Transport: by default an HTTPTransport to a URL. The generated service
 * clients use one, which several may share (clients of several services and
 * files among them); it can also call a method by name.
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
    return resultOf<R>(response, id, method, errors);
  }

  /**
   * stream calls a stream method and yields its items as they arrive, one
   * per turn of a for await loop. Breaking out of the loop, the signal or the
   * timeout ends the call, and the server stops producing. An error response
   * is thrown (as call throws it) after the items that came before it; a
   * server that answers with the items as one array yields those.
   */
  async *stream<T>(method: string, params?: unknown, options: CallOptions = {}, errors?: ErrorClasses): AsyncGenerator<T, void, undefined> {
    if (options.batch) {
      throw new Error(`${method}: a stream cannot be batched`);
    }
    const id = this.#nextID++;
    const controller = globals.AbortController ? new globals.AbortController() : undefined;
    const outer = options.signal;
    const onOuter = () => controller?.abort(outer?.reason);
    outer?.addEventListener("abort", onOuter, { once: true });
    const queue: { item: T; taken: () => void }[] = [];
    let wake: (() => void) | undefined;
    const wakeUp = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    let streamed = false;
    const onMessage = (m: JSONRPCRequest): Promise<void> | undefined => {
      const p = m.params;
      if (m.method !== "$/stream" || !isObject(p) || p["id"] !== id) {
        return undefined;
      }
      streamed = true;
      return new Promise<void>((taken) => {
        queue.push({ item: p["item"] as T, taken });
        wakeUp();
      });
    };
    let outcome: { response?: JSONRPCResponse | JSONRPCResponse[] | undefined; error?: unknown } | undefined;
    const message: JSONRPCRequest = { jsonrpc: "2.0", id, method, params };
    const exchanged = this.exchange(message, { ...options, signal: controller?.signal ?? outer, onMessage }, method).then(
      (response) => {
        outcome = { response };
        wakeUp();
      },
      (error: unknown) => {
        outcome = { error };
        wakeUp();
      },
    );
    let ended = false;
    try {
      for (;;) {
        const next = queue.shift();
        if (next !== undefined) {
          next.taken();
          yield next.item;
          continue;
        }
        if (outcome !== undefined) {
          break;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
      ended = true;
      if ("error" in outcome) {
        throw outcome.error;
      }
      const result = resultOf<unknown>(outcome.response, id, method, errors);
      if (!streamed && Array.isArray(result)) {
        yield* result as T[];
      }
    } finally {
      outer?.removeEventListener("abort", onOuter);
      if (!ended) {
        controller?.abort(new CancelledError(`${method}: the caller stopped reading the stream`));
      }
      await exchanged;
    }
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
    label: string = Array.isArray(message) ? "batch" : message.method,
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
  TextDecoder?: new () => { decode(input?: Uint8Array, options?: { stream?: boolean }): string };
  WebSocket?: WebSocketClass;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

/**
 * resultOf returns the result of response, the answer to request id of
 * method, or throws its error as an RPCError (the class errors names for its
 * code, if it does), or a TransportError when it is not a response to id.
 */
function resultOf<R>(
  response: JSONRPCResponse | JSONRPCResponse[] | undefined,
  id: number,
  method: string,
  errors: ErrorClasses | undefined,
): R {
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

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === "object" && v !== null;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// MCP tools and the Tasks extension. MCPClient calls a server's tools over
// MCP 2026-07-28 (Streamable HTTP, or any Transport that carries headers and
// a request's messages): no handshake, each request carries the protocol
// revision and the client's capabilities in its _meta. A tool the server runs
// as a task (the Tasks extension, SEP-2663) is answered at once with a task,
// which the client follows: through its status notifications (a
// subscriptions/listen stream naming it) when the server agrees to send them,
// else by polling tasks/get as often as the server asks; it answers the
// task's input requests (a confirmation asked midway) with the client's
// handlers (tasks/update) and cancels it (tasks/cancel) when the caller gives
// up. The generated <Service>MCPClient classes call through one.

/** The MCP revision MCPClient speaks: 2026-07-28, which has no handshake. */
export const MCPProtocolVersion = "2026-07-28";

/** The identifier of MCP's Tasks extension (SEP-2663). */
export const MCPTasksExtensionID = "io.modelcontextprotocol/tasks";

/** The state of a task: working or input_required until it ends completed, failed or cancelled. */
export type MCPTaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/**
 * A request the server makes of the client inside a task (or a call
 * answered input_required): elicitation/create, sampling/createMessage or
 * roots/list, and its params.
 */
export interface MCPInputRequest {
  method: string;
  params?: unknown;
}

/** The result of a tools/call: content blocks, the structured result, and whether the tool failed. */
export interface MCPCallToolResult {
  content?: unknown[] | undefined;
  structuredContent?: unknown;
  isError?: boolean | undefined;
  _meta?: Record<string, unknown> | undefined;
}

/**
 * A task as tasks/get answers it: its status, progress (statusMessage), the
 * input requests it waits on (input_required), the tool's result
 * (completed) or the error it failed with (failed). Timestamps are ISO 8601.
 */
export interface MCPTask {
  taskId: string;
  status: MCPTaskStatus;
  statusMessage?: string | undefined;
  createdAt: string;
  lastUpdatedAt: string;
  /** How long after createdAt the server keeps the task, in ms; null: unlimited. */
  ttlMs: number | null;
  /** How often to poll, in ms, when the server says. */
  pollIntervalMs?: number | undefined;
  inputRequests?: Record<string, MCPInputRequest> | undefined;
  result?: MCPCallToolResult | undefined;
  error?: JSONRPCErrorObject | undefined;
}

/** The params of elicitation/create: what to ask the user, and the form's schema (form mode). */
export interface MCPElicitParams {
  mode?: string | undefined;
  message: string;
  requestedSchema?: unknown;
  url?: string | undefined;
}

/** The user's answer to an elicitation: accepted with the form's content, declined or cancelled. */
export interface MCPElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown> | undefined;
}

/** MCPClientOptions configure an MCPClient. */
export interface MCPClientOptions extends ClientOptions {
  /** The client's name and version, sent with every request (io.modelcontextprotocol/clientInfo). */
  clientInfo?: { name: string; version: string } | undefined;
  /**
   * Answers the server's elicitation/create requests (a confirmation a
   * task asks for midway); the client declares elicitation (form mode)
   * when it is set.
   */
  onElicit?: ((params: MCPElicitParams, signal: AbortSignalLike | undefined) => MCPElicitResult | Promise<MCPElicitResult>) | undefined;
  /**
   * Answers the other input requests (sampling/createMessage, roots/list),
   * returning their result; declare what it answers in capabilities.
   */
  onInput?: ((request: MCPInputRequest, signal: AbortSignalLike | undefined) => unknown) | undefined;
  /** Client capabilities declared on top of those the handlers imply, e.g. { sampling: {} }. */
  capabilities?: Record<string, unknown> | undefined;
  /** Declare the Tasks extension, so that the server may answer a call with a task (default true). */
  tasks?: boolean | undefined;
}

/**
 * An MCP tool as a generated client calls it: its name, how to decode its
 * structured result, whether the method has none, and the classes of its
 * declared errors.
 */
export interface MCPTool<R> {
  readonly name: string;
  readonly result: (structured: unknown) => R;
  readonly noResult?: boolean | undefined;
  readonly errors?: ErrorClasses | undefined;
}

/**
 * MCPToolError is a tool's error result (isError) that carries no JSON-RPC
 * error: its text blocks, and the whole result. A tool of rpcgen's that
 * returns an error is thrown as that error instead (its declared class, or
 * an RPCError), as over JSON-RPC.
 */
export class MCPToolError extends Error {
  /** The tool's name. */
  readonly tool: string;
  /** The tool's result, isError set. */
  readonly result: MCPCallToolResult;

  constructor(tool: string, result: MCPCallToolResult) {
    const texts = (result.content ?? []).flatMap((b) => (isObject(b) && b["type"] === "text" && typeof b["text"] === "string" ? [b["text"] as string] : []));
    super(texts.join("\n") || `tool ${tool} failed`);
    this.name = "MCPToolError";
    this.tool = tool;
    this.result = result;
  }
}

/** MCPTaskCancelledError is a task that ended cancelled (by tasks/cancel, from this client or another). */
export class MCPTaskCancelledError extends CancelledError {
  /** The task's ID. */
  readonly taskId: string;

  constructor(tool: string, taskId: string) {
    super(`${tool}: the task ${taskId} was cancelled`);
    this.name = "MCPTaskCancelledError";
    this.taskId = taskId;
  }
}

// The _meta keys rpcgen's servers mark a tool's error result with: the
// JSON-RPC error it returned, and a result that is null.
const metaError = "io.github.rpcgen/error";
const metaNull = "io.github.rpcgen/null";

// How often a task is polled when its server does not say, and how many
// input_required rounds one call answers.
const defaultPollMs = 500;
const maxInputRounds = 10;

/**
 * MCPClient calls MCP tools over MCP 2026-07-28 and follows the tasks the
 * server answers them with; see the generated <Service>MCPClient classes
 * for typed calls. Several generated clients may share one.
 */
export class MCPClient {
  /** The JSON-RPC client the requests go through. */
  readonly rpc: JSONRPCClient;
  readonly #opts: MCPClientOptions;
  #nextID = 1;

  constructor(target: string | Transport, options: MCPClientOptions = {}) {
    this.rpc = new JSONRPCClient(target, options);
    this.#opts = options;
  }

  /** The capabilities the client declares on every request. */
  capabilities(): Record<string, unknown> {
    const caps: Record<string, unknown> = { ...this.#opts.capabilities };
    if (this.#opts.onElicit) {
      caps["elicitation"] = { form: {} };
    }
    if (this.#opts.tasks !== false) {
      const declared = caps["extensions"];
      caps["extensions"] = { ...(isObject(declared) ? declared : {}), [MCPTasksExtensionID]: {} };
    }
    return caps;
  }

  /**
   * request sends an MCP request and returns its result, answering the
   * input_required rounds of a call with the client's handlers. name is the
   * value of the Mcp-Name header (a tool's name, a task's ID). An error
   * response is thrown as call throws it.
   */
  async request<R = Record<string, unknown>>(method: string, params: Record<string, unknown>, options: CallOptions = {}, name?: string, errors?: ErrorClasses): Promise<R> {
    const headers: Record<string, string> = { ...options.headers, "MCP-Protocol-Version": MCPProtocolVersion, "Mcp-Method": method };
    if (name !== undefined) {
      headers["Mcp-Name"] = name;
    }
    const meta: Record<string, unknown> = {
      "io.modelcontextprotocol/protocolVersion": MCPProtocolVersion,
      "io.modelcontextprotocol/clientCapabilities": this.capabilities(),
    };
    if (this.#opts.clientInfo) {
      meta["io.modelcontextprotocol/clientInfo"] = this.#opts.clientInfo;
    }
    let sent: Record<string, unknown> = { ...params, _meta: meta };
    for (let round = 0; ; round++) {
      const id = this.#nextID++;
      const message: JSONRPCRequest = { jsonrpc: "2.0", id, method, params: sent };
      // onMessage: the answer may come as an event stream, after
      // notifications of the call's own (progress), which are dropped.
      const response = await this.rpc.exchange(message, { ...options, headers, onMessage: () => {} }, method);
      const result = resultOf<Record<string, unknown>>(response, id, method, errors);
      if (!isObject(result) || result["resultType"] !== "input_required") {
        return result as R;
      }
      if (round >= maxInputRounds) {
        throw new TransportError(`${method}: the server asked for input ${maxInputRounds} times`);
      }
      const requests = result["inputRequests"];
      const answers = isObject(requests) ? await this.answerInputs(requests, options.signal) : {};
      sent = { ...params, _meta: meta, inputResponses: answers };
      if (result["requestState"] !== undefined) {
        sent["requestState"] = result["requestState"];
      }
    }
  }

  /**
   * answerInputs answers input requests, by key, with the client's
   * handlers: onElicit for elicitation/create, onInput for the others. A
   * request no handler answers throws an RPCError (method not found).
   */
  async answerInputs(requests: Record<string, unknown>, signal?: AbortSignalLike): Promise<Record<string, unknown>> {
    const answers: Record<string, unknown> = {};
    for (const key of Object.keys(requests).sort()) {
      const req = requests[key];
      if (!isObject(req) || typeof req["method"] !== "string") {
        throw new TransportError(`the server's input request ${key} is malformed`);
      }
      const request: MCPInputRequest = { method: req["method"], params: req["params"] };
      if (request.method === "elicitation/create" && this.#opts.onElicit) {
        answers[key] = await this.#opts.onElicit(request.params as MCPElicitParams, signal);
      } else if (this.#opts.onInput) {
        answers[key] = await this.#opts.onInput(request, signal);
      } else {
        throw new RPCError(ErrorCode.MethodNotFound, `the server asked for ${request.method} (input request ${key}), which this client has no handler for`);
      }
    }
    return answers;
  }

  /**
   * callTool calls a tool and returns its decoded result. A task the
   * server creates for the call is followed until it ends; aborting
   * options.signal cancels it. A tool's error is thrown as its declared
   * class (an RPCError), or an MCPToolError; a failed task as the error it
   * failed with; a cancelled one as an MCPTaskCancelledError. options.timeout
   * bounds each request, not the whole call.
   */
  async callTool<R>(tool: MCPTool<R>, args: unknown, options: CallOptions = {}): Promise<R> {
    const handle = await this.startTool(tool, args, options);
    return handle.result(options);
  }

  /**
   * startTool calls a tool and returns the handle of the task the server
   * created for it, without following it. A call answered at once gives a
   * handle with no id whose result returns that answer.
   */
  async startTool<R>(tool: MCPTool<R>, args: unknown, options: CallOptions = {}): Promise<MCPToolTask<R>> {
    const result = await this.request("tools/call", { name: tool.name, arguments: args ?? {} }, options, tool.name, tool.errors);
    if (result["resultType"] === "task") {
      return new MCPToolTask(this, tool, checkTask(tool.name, result, undefined));
    }
    return new MCPToolTask(this, tool, undefined, result as MCPCallToolResult);
  }

  /**
   * task picks up a task of tool by its ID (created earlier, by this client
   * or another one: after a restart, say), as tasks/get now answers it.
   */
  async task<R>(tool: MCPTool<R>, taskId: string, options: CallOptions = {}): Promise<MCPToolTask<R>> {
    const handle = new MCPToolTask(this, tool, { taskId, status: "working", createdAt: "", lastUpdatedAt: "", ttlMs: null });
    await handle.refresh(options);
    return handle;
  }

  /** close closes the transport. */
  async close(): Promise<void> {
    await this.rpc.close();
  }
}

// checkTask returns result as an MCPTask when it is one (of the task id, when
// given), or throws a TransportError.
function checkTask(tool: string, result: unknown, id: string | undefined): MCPTask {
  const statuses = ["working", "input_required", "completed", "failed", "cancelled"];
  if (!isObject(result) || typeof result["taskId"] !== "string" || result["taskId"] === "" || !statuses.includes(result["status"] as string) || (id !== undefined && result["taskId"] !== id)) {
    throw new TransportError(`${tool}: the server sent a malformed task: ${JSON.stringify(result).slice(0, 200)}`);
  }
  return result as MCPTask;
}

/**
 * MCPToolTask is a tool call the server runs as a task: its ID, its state as
 * last seen, and the requests that read and steer it. result follows it to
 * its end. One caller at a time.
 */
export class MCPToolTask<R> {
  readonly #client: MCPClient;
  readonly #tool: MCPTool<R>;
  #task: MCPTask;
  readonly #atOnce: MCPCallToolResult | undefined;
  readonly #answered = new Set<string>();

  /** Made by MCPClient.startTool and MCPClient.task. */
  constructor(client: MCPClient, tool: MCPTool<R>, task: MCPTask | undefined, atOnce?: MCPCallToolResult) {
    this.#client = client;
    this.#tool = tool;
    this.#atOnce = atOnce;
    this.#task = task ?? { taskId: "", status: "completed", createdAt: "", lastUpdatedAt: "", ttlMs: null, result: atOnce };
  }

  /** The task's ID, "" when the server answered the call at once. Keep it to pick the task up later (MCPClient.task). */
  get id(): string {
    return this.#task.taskId;
  }

  /** The task's status as last seen. */
  get status(): MCPTaskStatus {
    return this.#task.status;
  }

  /** The task as last seen: status, statusMessage (progress), input requests. */
  get task(): MCPTask {
    return this.#task;
  }

  /** refresh asks the server for the task's state (tasks/get) and returns it. */
  async refresh(options: CallOptions = {}): Promise<MCPTask> {
    if (this.#atOnce !== undefined) {
      return this.#task;
    }
    const id = this.#task.taskId;
    const t = await this.#client.request("tasks/get", { taskId: id }, options, id);
    this.#task = checkTask(this.#tool.name, t, id);
    return this.#task;
  }

  /**
   * answer sends answers to the task's input requests, by key (tasks/update):
   * each the result of its request, as elicitation/create answers.
   */
  async answer(responses: Record<string, unknown>, options: CallOptions = {}): Promise<void> {
    if (this.#atOnce !== undefined) {
      throw new Error(`${this.#tool.name}: the call was answered at once: no task to answer`);
    }
    const id = this.#task.taskId;
    await this.#client.request("tasks/update", { taskId: id, inputResponses: responses }, options, id);
    for (const k of Object.keys(responses)) this.#answered.add(k);
  }

  /**
   * cancel asks the server to cancel the task (tasks/cancel), then reads its
   * state. Cancellation is cooperative: the task may still end otherwise.
   */
  async cancel(options: CallOptions = {}): Promise<void> {
    if (this.#atOnce !== undefined) {
      return;
    }
    const id = this.#task.taskId;
    await this.#client.request("tasks/cancel", { taskId: id }, options, id);
    await this.refresh(options).catch(() => {});
  }

  /**
   * result follows the task until it ends and returns the tool's decoded
   * result, answering its input requests with the client's handlers. It
   * listens for the task's status notifications when the server agrees,
   * else (or once that stream is lost) polls tasks/get every
   * pollIntervalMs. Aborting options.signal cancels the task and throws a
   * CancelledError. Errors: as MCPClient.callTool says.
   */
  async result(options: CallOptions = {}): Promise<R> {
    const signal = options.signal;
    let watch: TaskWatch | undefined;
    let watched = this.#atOnce !== undefined;
    try {
      for (;;) {
        const t = this.#task;
        switch (t.status) {
          case "completed":
            return toolResult(this.#tool, t.result);
          case "failed": {
            const e = t.error;
            if (!isObject(e) || typeof e.code !== "number") {
              throw new RPCError(ErrorCode.InternalError, `${this.#tool.name}: the task failed: ${t.statusMessage ?? "no error given"}`);
            }
            const cls = this.#tool.errors?.[e.code];
            throw cls ? new cls(String(e.message), e.data) : new RPCError(e.code, String(e.message), e.data);
          }
          case "cancelled":
            throw new MCPTaskCancelledError(this.#tool.name, t.taskId);
          case "input_required":
            try {
              await this.#answerAll(options);
            } catch (err) {
              // A question the client cannot answer: the task would wait
              // on it until its TTL, so it is cancelled.
              if (!signal?.aborted) await this.cancel({ headers: options.headers }).catch(() => {});
              throw err;
            }
        }
        if (signal?.aborted) {
          throw new CancelledError(`${this.#tool.name}: cancelled`, signal.reason);
        }
        if (!watched) {
          watched = true;
          watch = await TaskWatch.open(this.#client, t.taskId, options);
          if (watch) {
            await this.refresh(options); // what changed before the server agreed is not sent
            continue;
          }
        }
        if (watch) {
          const next = await watch.next(signal);
          if (next) {
            this.#task = next;
          } else {
            watch.close();
            watch = undefined;
            await this.refresh(options);
          }
          continue;
        }
        await sleep(t.pollIntervalMs && t.pollIntervalMs > 0 ? t.pollIntervalMs : defaultPollMs, signal);
        await this.refresh(options);
      }
    } catch (err) {
      if (signal?.aborted && this.#atOnce === undefined && !isTerminal(this.#task.status)) {
        // The caller gave up: the task is cancelled, on requests of their own.
        await this.cancel({ headers: options.headers }).catch(() => {});
        throw err instanceof CancelledError ? err : new CancelledError(`${this.#tool.name}: cancelled`, signal.reason);
      }
      throw err;
    } finally {
      watch?.close();
    }
  }

  /** wait follows the task as result does, for a caller that needs no result. */
  async wait(options: CallOptions = {}): Promise<void> {
    await this.result(options);
  }

  // answerAll answers the input requests not answered yet.
  async #answerAll(options: CallOptions): Promise<void> {
    const pending: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(this.#task.inputRequests ?? {})) {
      if (!this.#answered.has(k)) pending[k] = v;
    }
    if (Object.keys(pending).length > 0) {
      await this.answer(await this.#client.answerInputs(pending, options.signal), options);
    }
  }
}

function isTerminal(s: MCPTaskStatus): boolean {
  return s === "completed" || s === "failed" || s === "cancelled";
}

// toolResult decodes a tools/call result as tool's method returns it, or
// throws the error it carries.
function toolResult<R>(tool: MCPTool<R>, res: MCPCallToolResult | undefined): R {
  if (!isObject(res)) {
    throw new TransportError(`${tool.name}: the task completed without a result`);
  }
  const meta = isObject(res._meta) ? res._meta : {};
  if (res.isError === true) {
    if (meta[metaNull] === true) {
      return tool.result(null);
    }
    const e = meta[metaError];
    if (isObject(e) && typeof e["code"] === "number") {
      const cls = tool.errors?.[e["code"]];
      const message = String(e["message"]);
      throw cls ? new cls(message, e["data"]) : new RPCError(e["code"], message, e["data"]);
    }
    throw new MCPToolError(tool.name, res);
  }
  if (tool.noResult) {
    return tool.result(undefined);
  }
  if (res.structuredContent === undefined || res.structuredContent === null) {
    throw new TransportError(`${tool.name}: the tool returned no structured result`);
  }
  return tool.result(res.structuredContent);
}

// sleep resolves after ms, or rejects with a CancelledError when signal is
// aborted first.
function sleep(ms: number, signal: AbortSignalLike | undefined): Promise<void> {
  if (signal?.aborted) {
    return Promise.reject(new CancelledError("cancelled", signal.reason));
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      globals.clearTimeout(timer);
      reject(new CancelledError("cancelled", signal?.reason));
    };
    const timer = globals.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * TaskWatch is a subscriptions/listen stream carrying one task's status
 * notifications (2026-07-28): each the task as tasks/get answers it.
 */
class TaskWatch {
  readonly #controller: { readonly signal: AbortSignalLike; abort(reason?: unknown): void };
  #latest: MCPTask | undefined;
  #ended = false;
  #acked: ((agreed: boolean) => void) | undefined;
  #wake: (() => void) | undefined;

  private constructor(controller: { readonly signal: AbortSignalLike; abort(reason?: unknown): void }) {
    this.#controller = controller;
  }

  /**
   * open opens the stream and resolves once the server agreed to send the
   * task's status; undefined when it refused, did not agree or the stream
   * failed (the caller polls then).
   */
  static async open(client: MCPClient, taskId: string, options: CallOptions): Promise<TaskWatch | undefined> {
    const AC = globals.AbortController;
    if (!AC || options.signal?.aborted) {
      return undefined;
    }
    const w = new TaskWatch(new AC());
    const agreed = new Promise<boolean>((resolve) => (w.#acked = resolve));
    const headers: Record<string, string> = { ...options.headers, "MCP-Protocol-Version": MCPProtocolVersion, "Mcp-Method": "subscriptions/listen" };
    const params = {
      notifications: { taskIds: [taskId] },
      _meta: { "io.modelcontextprotocol/protocolVersion": MCPProtocolVersion, "io.modelcontextprotocol/clientCapabilities": client.capabilities() },
    };
    const onMessage = (m: JSONRPCRequest): void => {
      const p = m.params;
      if (!isObject(p)) return;
      if (m.method === "notifications/subscriptions/acknowledged") {
        const n = p["notifications"];
        w.#acked?.(isObject(n) && Array.isArray(n["taskIds"]) && n["taskIds"].includes(taskId));
      } else if (m.method === "notifications/tasks" && p["taskId"] === taskId) {
        try {
          w.#latest = checkTask("subscriptions/listen", p, taskId);
        } catch {
          return; // a malformed notification is dropped
        }
        w.#wake?.();
      }
    };
    const message: JSONRPCRequest = { jsonrpc: "2.0", id: `listen-${taskId}`, method: "subscriptions/listen", params };
    const end = () => {
      w.#ended = true;
      w.#acked?.(false);
      w.#wake?.();
    };
    client.rpc.exchange(message, { headers, signal: w.#controller.signal, onMessage }, "subscriptions/listen").then(end, end);
    const onAbort = () => w.close();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const ok = await agreed;
    options.signal?.removeEventListener("abort", onAbort);
    if (!ok) {
      w.close();
      return undefined;
    }
    return w;
  }

  /**
   * next resolves with the task's latest state not read yet, waiting for
   * one; undefined once the stream ended. It rejects with a CancelledError
   * when signal is aborted.
   */
  async next(signal: AbortSignalLike | undefined): Promise<MCPTask | undefined> {
    for (;;) {
      const t = this.#latest;
      if (t !== undefined) {
        this.#latest = undefined;
        return t;
      }
      if (this.#ended) {
        return undefined;
      }
      if (signal?.aborted) {
        throw new CancelledError("cancelled", signal.reason);
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          signal?.removeEventListener("abort", done);
          this.#wake = undefined;
          resolve();
        };
        signal?.addEventListener("abort", done, { once: true });
        this.#wake = done;
      });
    }
  }

  /** close ends the stream. */
  close(): void {
    this.#controller.abort(new CancelledError("the task's status is no longer followed"));
  }
}
