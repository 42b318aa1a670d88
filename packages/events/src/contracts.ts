import { z } from 'zod';
import { bundleStatuses, esimStatuses, ledgerEntryTypes, orderKinds, orderStatuses, partnerEventTypes } from '@esim/vocabulary';

/**
 * Every event that crosses a service boundary, declared once: its subject
 * (without the namespace), its stream, and its payload schema. Publishers
 * validate before writing to the outbox; consumers parse on receipt.
 */
export const streams = {
  /** Mail requests: a work queue, so a message is gone once the mailer acks it. */
  MAIL: { subjects: ['mail.>'], retention: 'workqueue', maxAgeMs: 7 * 86_400_000 },
  /** Operator actions recorded by any service; the partners service keeps the log. */
  AUDIT: { subjects: ['audit.>'], retention: 'limits', maxAgeMs: 7 * 86_400_000 },
  /** Partner account changes other services react to. */
  PARTNERS: { subjects: ['partners.>'], retention: 'limits', maxAgeMs: 86_400_000 },
  /** Catalog changes; catalog replicas refresh their in-memory plans. */
  CATALOG: { subjects: ['catalog.>'], retention: 'limits', maxAgeMs: 86_400_000 },
  /** The order saga: paid, provisioned, provisioning failed (orders publishes). */
  ORDERS: { subjects: ['orders.>'], retention: 'limits', maxAgeMs: 7 * 86_400_000 },
  /** Supplier outcomes per order (provisioning publishes). */
  PROVISIONING: { subjects: ['provisioning.>'], retention: 'limits', maxAgeMs: 7 * 86_400_000 },
  /** Money movements other services react to (wallet publishes). */
  WALLET: { subjects: ['wallet.>'], retention: 'limits', maxAgeMs: 7 * 86_400_000 },
  /** Partner-facing events (§9), in order; only the webhooks service consumes them. */
  PARTNER_EVENTS: { subjects: ['partner.>'], retention: 'limits', maxAgeMs: 7 * 86_400_000 },
} as const satisfies Record<string, StreamSpec>;

export interface StreamSpec {
  subjects: readonly string[];
  retention: 'limits' | 'workqueue';
  maxAgeMs: number;
}

export type StreamName = keyof typeof streams;

/** Base64 AES-256-GCM ciphertext under the platform data key; only the mailer opens it. */
const sealed = z.string().regex(/^v[12]\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$/, 'sealed secret');

const money = z.number().int();
const currency = z.string().regex(/^[A-Z]{3}$/);

/** An order's eSIM as partners see it (contract §7), without the QR code. */
const partnerOrderEsim = z.object({ iccid: z.string(), smdpAddress: z.string(), matchingId: z.string(), activationCode: z.string(), appleInstallUrl: z.string() });

/** The order as partners see it (contract §7), without the QR code: webhooks carry this, not the PNG. */
export const partnerOrderView = z.object({
  id: z.string(),
  clientRequestId: z.string(),
  kind: z.enum(orderKinds),
  iccid: z.string().nullable(),
  planId: z.string(),
  planName: z.string(),
  status: z.enum(orderStatuses),
  price: money,
  currency,
  email: z.string(),
  phoneNumber: z.string(),
  esim: partnerOrderEsim.nullable(),
  failureReason: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /*
   * Group orders (§7). Optional so that events written before groups existed
   * still parse; every event written since carries them.
   */
  quantity: z.number().int().optional(),
  unitPrice: money.optional(),
  esims: z.array(partnerOrderEsim).optional(),
  refundedAmount: money.nullable().optional(),
  /** Contract §14: false for a test account's object; derived from the account id (@esim/ids livemodeOf). Defaults keep events written before test mode readable. */
  livemode: z.boolean().default(true),
});

/** One bundle of an eSIM as partners see it (contract §13). */
export const partnerBundleView = z.object({
  orderId: z.string(),
  planId: z.string(),
  planName: z.string(),
  dataMb: z.number().int(),
  dataUsedMb: z.number().int(),
  validityDays: z.number().int(),
  status: z.enum(bundleStatuses),
  activatedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  /** Contract §14: false for a test account's object; derived from the account id (@esim/ids livemodeOf). Defaults keep events written before test mode readable. */
  livemode: z.boolean().default(true),
});

/** The eSIM as partners see it (contract §13). */
export const partnerEsimView = z.object({
  iccid: z.string(),
  orderId: z.string(),
  status: z.enum(esimStatuses),
  smdpAddress: z.string(),
  matchingId: z.string(),
  activationCode: z.string(),
  appleInstallUrl: z.string(),
  countries: z.array(z.string()),
  region: z.string().nullable(),
  usage: z.object({ dataTotalMb: z.number().int(), dataUsedMb: z.number().int(), dataRemainingMb: z.number().int(), updatedAt: z.string() }),
  bundles: z.array(partnerBundleView),
  /** The device's EID once the SM-DP+ reported it (contract §13). */
  eid: z.string().nullable().default(null),
  /** The last failed download or installation the SM-DP+ reported. Defaults keep events published before them readable. */
  lastError: z
    .object({ at: z.string(), notificationPoint: z.number().int(), reasonCode: z.string().nullable(), message: z.string().nullable() })
    .nullable()
    .default(null),
  suspended: z.boolean().default(false),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Contract §14: false for a test account's object; derived from the account id (@esim/ids livemodeOf). Defaults keep events written before test mode readable. */
  livemode: z.boolean().default(true),
});

/** A wallet ledger entry as partners see it (contract §6). */
export const ledgerEntryView = z.object({
  id: z.string(),
  type: z.enum(ledgerEntryTypes),
  amount: money,
  balanceAfter: money,
  orderId: z.string().nullable(),
  reference: z.string().nullable(),
  description: z.string().nullable(),
  createdAt: z.string(),
  /** Contract §14: false for a test account's object; derived from the account id (@esim/ids livemodeOf). Defaults keep events written before test mode readable. */
  livemode: z.boolean().default(true),
});

/** A webhook endpoint as partners see it (contract §9, "Several endpoints per partner"). */
export const webhookEndpointView = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string(),
  /** null: every event type. */
  eventTypes: z.array(z.enum(partnerEventTypes)).nullable(),
  enabled: z.boolean(),
  livemode: z.boolean(),
  /** "failing" when the platform disabled it; null when enabled or disabled by hand. */
  disabledReason: z.string().nullable(),
  createdAt: z.string(),
});

/**
 * The partner-facing events of contract §9. The envelope id is the event id
 * partners dedupe by; `type` and `payload` become the webhook body's `type`
 * and `data`.
 */
export const partnerNotification = z.discriminatedUnion('type', [
  z.object({
    partnerId: z.string(),
    type: z.literal('payment.paid'),
    orderId: z.string(),
    payload: z.object({ orderId: z.string(), clientRequestId: z.string(), amount: money, currency, walletBalance: money }),
  }),
  z.object({
    partnerId: z.string(),
    type: z.literal('provision.provisioned'),
    orderId: z.string(),
    // refundedAmount: a partially provisioned group order's refund of its missing units (§7).
    payload: z.object({ order: partnerOrderView, refundedAmount: money.optional() }),
  }),
  z.object({
    partnerId: z.string(),
    type: z.literal('provision.failed'),
    orderId: z.string(),
    payload: z.object({ order: partnerOrderView, refundedAmount: money }),
  }),
  z.object({
    partnerId: z.string(),
    type: z.literal('wallet.credited'),
    orderId: z.null(),
    payload: z.object({ ledgerEntry: ledgerEntryView, walletBalance: money }),
  }),
  z.object({
    partnerId: z.string(),
    type: z.literal('webhook.test'),
    orderId: z.null(),
    payload: z.object({ message: z.string() }),
    /** Set by a per-endpoint test (§9): the event goes to this endpoint alone; absent, to every endpoint that takes it. */
    endpointId: z.string().optional(),
  }),
  /*
   * eSIM events carry the eSIM's first order id as orderId: the webhooks
   * service delivers one orderId's events in order, which is what "per eSIM,
   * in the order they happened" (§9) needs.
   */
  z.object({ partnerId: z.string(), type: z.literal('esim.installed'), orderId: z.string(), payload: z.object({ esim: partnerEsimView }) }),
  z.object({
    partnerId: z.string(),
    type: z.literal('esim.usage_threshold'),
    orderId: z.string(),
    payload: z.object({ esim: partnerEsimView, bundle: partnerBundleView, threshold: z.union([z.literal(80), z.literal(100)]) }),
  }),
  z.object({
    partnerId: z.string(),
    type: z.literal('esim.bundle_expired'),
    orderId: z.string(),
    payload: z.object({ esim: partnerEsimView, bundle: partnerBundleView }),
  }),
  z.object({
    partnerId: z.string(),
    type: z.literal('order.cancelled'),
    orderId: z.string(),
    payload: z.object({ order: partnerOrderView, refundedAmount: money }),
  }),
  /** A debit took the wallet below the partner's lowBalanceThreshold (§9); once per crossing. */
  z.object({
    partnerId: z.string(),
    type: z.literal('wallet.balance_low'),
    orderId: z.null(),
    payload: z.object({ walletBalance: money, threshold: money }),
  }),
  /** One of the partner's endpoints was disabled for failing (§9); goes to its other endpoints. */
  z.object({
    partnerId: z.string(),
    type: z.literal('webhook.endpoint_disabled'),
    orderId: z.null(),
    payload: z.object({ endpoint: webhookEndpointView }),
  }),
  z.object({ partnerId: z.string(), type: z.literal('esim.install_failed'), orderId: z.string(), payload: z.object({ esim: partnerEsimView }) }),
  z.object({ partnerId: z.string(), type: z.literal('esim.deleted'), orderId: z.string(), payload: z.object({ esim: partnerEsimView }) }),
  z.object({ partnerId: z.string(), type: z.literal('esim.suspended'), orderId: z.string(), payload: z.object({ esim: partnerEsimView }) }),
  z.object({ partnerId: z.string(), type: z.literal('esim.resumed'), orderId: z.string(), payload: z.object({ esim: partnerEsimView }) }),
]);
export type PartnerNotification = z.output<typeof partnerNotification>;

export const events = {
  'mail.requested': {
    stream: 'MAIL',
    data: z.object({
      to: z.email(),
      template: z.enum([
        'application_received',
        'partner_approved',
        'partner_rejected',
        'api_key_issued',
        'webhook_secret_rotated',
        // #24: accounts and operators.
        'email_verification',
        'password_reset',
        'password_changed',
        'webhook_url_changed',
        'operator_invited',
        // #28: an endpoint disabled for failing.
        'webhook_endpoint_disabled',
        // #24: any webhook endpoint created, changed, deleted or its secret rotated (the webhooks service).
        'webhook_endpoint_changed',
      ]),
      /** Non-secret template values (names, tier, reason, key prefix). */
      values: z.record(z.string(), z.string()),
      /** Secret template values (an API key, a webhook secret), sealed. */
      sealedValues: z.record(z.string(), sealed).default({}),
    }),
  },
  'audit.recorded': {
    stream: 'AUDIT',
    data: z.object({
      action: z.string().min(1),
      target: z.string().min(1),
      /** The authenticated actor (an operator id, `admin-token`, `partner:<id>`), from the credential, never a header. */
      operator: z.string(),
      requestId: z.string(),
      /** The free-text X-Operator header: kept beside the actor as the entry's `note`, never taken as the actor (§10). */
      note: z.string().max(100).default(''),
      details: z.record(z.string(), z.unknown()),
      occurredAt: z.string(),
    }),
  },
  /** Keys whose cached credentials are stale (revoked, partner suspended, tier changed). */
  'partners.credentials.changed': {
    stream: 'PARTNERS',
    data: z.object({ partnerId: z.string(), prefixes: z.array(z.string()) }),
  },
  /**
   * A partner's webhook URL or signing secret changed (approval, rotation, a
   * URL set or cleared): webhook senders drop their cached endpoint. Carries
   * no URL and no secret; the next attempt asks the partners service.
   */
  'partners.webhook_endpoint.changed': {
    stream: 'PARTNERS',
    data: z.object({ partnerId: z.string() }),
  },
  /**
   * A partner asked to wipe its test data (contract §14): every service that
   * keeps rows for the test account (`accountId`, always `ptn_…_test`)
   * deletes them all; live data is never named here.
   */
  'partners.test_data.delete_requested': {
    stream: 'PARTNERS',
    data: z.object({ accountId: z.string().regex(/^ptn_[0-9a-hjkmnp-tv-z]{26}_test$/, 'test account id'), requestedAt: z.string() }),
  },
  'catalog.plan.changed': {
    stream: 'CATALOG',
    data: z.object({ planId: z.string(), active: z.boolean() }),
  },
  /**
   * The wallet reserved (debited) the price: provisioning may start. A
   * top-up (kind 'topup') adds a bundle to the eSIM `iccid` instead of
   * issuing one; dataMb/validityDays size the bundle at the supplier.
   * Defaults keep events published before top-ups existed readable.
   */
  'orders.order.paid': {
    stream: 'ORDERS',
    data: z.object({
      orderId: z.string(),
      partnerId: z.string(),
      planId: z.string(),
      supplierSku: z.string(),
      price: money,
      currency,
      kind: z.enum(orderKinds).default('esim'),
      iccid: z.string().nullable().default(null),
      dataMb: z.number().int().positive().optional(),
      validityDays: z.number().int().positive().optional(),
      /** The plan's SM-DP+ profile type (contract §8); absent: provisioning's SMDP_PROFILE_TYPE. */
      profileType: z.string().min(1).max(256).optional(),
      /**
       * The customer's e-mail, on a test account's order only (contract §14's
       * magic e-mails steer the simulator); a live customer's e-mail never
       * travels to provisioning.
       */
      customerEmail: z.string().max(320).optional(),
    }),
  },
  /** The eSIM is stored on the order: the wallet captures the reservation. */
  'orders.order.provisioned': {
    stream: 'ORDERS',
    data: z.object({ orderId: z.string(), partnerId: z.string() }),
  },
  /**
   * Provisioning failed for good: the wallet releases the reservation and
   * refunds. `amount` (a group order some of whose eSIMs were provisioned,
   * §7): refund only this much, as one entry, and capture the rest.
   */
  'orders.order.provisioning_failed': {
    stream: 'ORDERS',
    data: z.object({ orderId: z.string(), partnerId: z.string(), reason: z.string(), amount: money.positive().optional() }),
  },
  /** The supplier returned an eSIM for the order. */
  'provisioning.succeeded': {
    stream: 'PROVISIONING',
    data: z.object({
      orderId: z.string(),
      /** The order's account: its mode picks the event's lane (./lanes.ts). Absent on events written before lanes (live lane). */
      partnerId: z.string().optional(),
      supplierReference: z.string(),
      iccid: z.string(),
      smdpAddress: z.string(),
      matchingId: z.string(),
      activationCode: z.string(),
    }),
  },
  /** The supplier rejected the order for good, or kept failing past the retry window. */
  'provisioning.failed': {
    stream: 'PROVISIONING',
    data: z.object({ orderId: z.string(), partnerId: z.string().optional(), reason: z.string() }),
  },
  /**
   * The SM-DP+ reported a step of an eSIM profile's life over ES2+
   * HandleDownloadProgressInfo (contract §8), recorded once per call:
   * `effect` is what it means for the eSIM (provisioning reads the
   * notification points; orders applies the effect), `eid` the device's
   * EID when the SM-DP+ named it. `notificationId` is the dedupe key.
   */
  'provisioning.esim.progress': {
    stream: 'PROVISIONING',
    data: z.object({
      notificationId: z.string().min(1).max(100),
      iccid: z.string(),
      eid: z.string().nullable(),
      effect: z.enum(['installed', 'install_failed', 'deleted', 'none']),
      notificationPoint: z.number().int(),
      status: z.string(),
      reasonCode: z.string().nullable(),
      message: z.string().nullable(),
      occurredAt: z.string(),
    }),
  },
  /** The reservation of a failed order was released and its price refunded. */
  'wallet.order.refunded': {
    stream: 'WALLET',
    data: z.object({ orderId: z.string(), partnerId: z.string(), amount: money, ledgerEntryId: z.string(), balanceAfter: money }),
  },
  /** A partner-facing event (§9), delivered by the webhooks service. */
  'partner.notification': {
    stream: 'PARTNER_EVENTS',
    data: partnerNotification,
  },
} as const satisfies Record<string, { stream: StreamName; data: z.ZodType }>;

export type EventType = keyof typeof events;
export type EventData<T extends EventType> = z.output<(typeof events)[T]['data']>;

export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  occurredAt: string;
  data: EventData<T>;
}
