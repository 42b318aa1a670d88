import createFetchClient, { type Client } from 'openapi-fetch';
import { EsimApiError } from './errors.js';
import type { components, paths } from './generated/partner.js';
import type { FiltersOf, ItemOf, PagedPath, PageOf, QueryOf } from './paging.js';
import { retryingFetch, type Fetch, type RetryOptions } from './retry.js';
import { testHelpers } from './testHelpers.js';
import { webhooks } from './webhooks.js';

type Schemas = components['schemas'];
export type Plan = Schemas['Plan'];
export type Order = Schemas['Order'];
export type Wallet = Schemas['Wallet'];
export type LedgerEntry = Schemas['LedgerEntry'];
export type Esim = Schemas['Esim'];
export type OrderRequest = Schemas['OrderRequestInput'];
/** What `orders.quote` takes: an order's body without `clientRequestId` (§7). */
export type QuoteRequest = Schemas['QuoteRequestInput'];
export type Quote = Schemas['Quote'];
/** The created (or replayed) order, the wallet balance after it, and whether it was a replay (`Idempotent-Replayed: true`). */
export type CreatedOrder = Schemas['OrderCreated'] & { replayed: boolean };

export interface ClientOptions {
  /** The platform's public listener, e.g. `https://api.example.com` or `http://localhost:8080`. */
  baseUrl: string;
  /** Your `sk_live_…` key, or a `sk_test_…` key for test mode (§14): the same calls, on your test data. */
  apiKey: string;
  retry?: RetryOptions;
  /** How long `orders.create` keeps retrying 409 REQUEST_IN_PROGRESS (default 10 s). */
  inProgressTimeoutMs?: number;
  /** A fetch of your own (tests, proxies); the SDK's retries wrap it. */
  fetch?: Fetch;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function newClientRequestId(): string {
  return `sdk-${crypto.randomUUID()}`;
}

/** `{ data, error, response }` from openapi-fetch to the body, or an EsimApiError. */
function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || !result.response.ok) throw new EsimApiError(result.response.status, result.error, result.response.headers.get('x-request-id'));
  return result.data as T;
}

/**
 * The partner API client. `raw` is the generated, fully typed openapi-fetch
 * client (every operation of the document); the rest is a thin layer over it
 * where it saves work: idempotent order creation, iteration over pages, and
 * problem answers thrown as typed errors.
 */
export function createClient(options: ClientOptions) {
  const inner: Fetch = options.fetch ?? ((request) => fetch(request));
  const clientOptions = {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}`, 'user-agent': '@esim/sdk' },
  };
  const raw: Client<paths> = createFetchClient<paths>({ ...clientOptions, fetch: retryingFetch(inner, options.retry) });
  // The test helpers' writes are not idempotent (a credit, added usage): retried only when refused before any work.
  const rawOnce: Client<paths> = createFetchClient<paths>({ ...clientOptions, fetch: retryingFetch(inner, options.retry, 'refusedOnly') });

  /** One page of any paged list. */
  async function page<P extends PagedPath>(path: P, query?: QueryOf<P>): Promise<PageOf<P>> {
    return unwrap(await (raw.GET as any)(path, { params: { query } }));
  }

  /** Every item of any paged list, page after page, lazily. */
  async function* iterate<P extends PagedPath>(path: P, filters?: FiltersOf<P>): AsyncGenerator<ItemOf<P>, void, undefined> {
    for (let current = 1; ; current += 1) {
      const body = (await page(path, { ...filters, page: current } as unknown as QueryOf<P>)) as { data: ItemOf<P>[]; pagination: { totalPages: number } };
      yield* body.data;
      if (current >= body.pagination.totalPages || body.data.length === 0) return;
    }
  }

  const orders = {
    /**
     * Orders a plan. Without a `clientRequestId` one is made up; every retry
     * (429, 503, a dropped connection, 409 REQUEST_IN_PROGRESS) sends the
     * same one, so the order is placed and paid at most once.
     */
    async create(request: Omit<OrderRequest, 'clientRequestId'> & { clientRequestId?: string }): Promise<CreatedOrder> {
      const body = { ...request, clientRequestId: request.clientRequestId ?? newClientRequestId() } as OrderRequest;
      const deadline = Date.now() + (options.inProgressTimeoutMs ?? 10_000);
      for (let wait = 200; ; wait = Math.min(wait * 2, 2_000)) {
        const result = await raw.POST('/api/v1/partner/orders', { body });
        if (result.response.status === 409 && Date.now() < deadline && (result.error as { code?: string } | undefined)?.code === 'REQUEST_IN_PROGRESS') {
          await sleep(wait);
          continue;
        }
        const created = unwrap(result) as Schemas['OrderCreated'];
        return { ...created, replayed: result.response.headers.get('idempotent-replayed') === 'true' };
      }
    },
    /** What an order would cost against your wallet now (`quantity` eSIMs, or a top-up with `iccid`); records nothing, never 402. */
    quote: async (request: QuoteRequest): Promise<Quote> => unwrap(await raw.POST('/api/v1/partner/orders/quote', { body: request })),
    /** Cancels an unused order (a group order as a whole), refunding it (§13). */
    cancel: async (orderId: string): Promise<Order> => unwrap(await raw.POST('/api/v1/partner/orders/{orderId}/cancel', { params: { path: { orderId } } })),
    /** The order's eSIMs as CSV: `iccid,smdpAddress,matchingId,activationCode,appleInstallUrl`, one row per eSIM. */
    esimsCsv: async (orderId: string): Promise<string> =>
      unwrap(await raw.GET('/api/v1/partner/orders/{orderId}/esims.csv', { params: { path: { orderId } }, parseAs: 'text' })) as string,
    get: async (orderId: string): Promise<Order> => unwrap(await raw.GET('/api/v1/partner/orders/{orderId}', { params: { path: { orderId } } })),
    list: (query?: QueryOf<'/api/v1/partner/orders'>) => page('/api/v1/partner/orders', query),
    all: (filters?: FiltersOf<'/api/v1/partner/orders'>) => iterate('/api/v1/partner/orders', filters),
  };

  const catalog = {
    list: (query?: QueryOf<'/api/v1/partner/catalog'>) => page('/api/v1/partner/catalog', query),
    all: (filters?: FiltersOf<'/api/v1/partner/catalog'>) => iterate('/api/v1/partner/catalog', filters),
  };

  const wallet = {
    get: async (): Promise<Wallet> => unwrap(await raw.GET('/api/v1/partner/wallet')),
    ledger: (query?: QueryOf<'/api/v1/partner/wallet/ledger'>) => page('/api/v1/partner/wallet/ledger', query),
    allLedgerEntries: (filters?: FiltersOf<'/api/v1/partner/wallet/ledger'>) => iterate('/api/v1/partner/wallet/ledger', filters),
  };

  /**
   * Which mode the key works in (§14): false for a `sk_test_…` key, whose
   * every call reads and writes your test data. The platform decides; this
   * only reads the key's published prefix, for logs and guards of your own.
   */
  const livemode = !options.apiKey.startsWith('sk_test_');

  return { raw, page, iterate, orders, catalog, wallet, webhooks, livemode, testHelpers: testHelpers(rawOnce, unwrap) };
}

export type EsimClient = ReturnType<typeof createClient>;
