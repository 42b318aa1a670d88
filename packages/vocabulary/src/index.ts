/**
 * The platform's closed vocabularies, declared once. The gateway's zod
 * schemas, the services' domain types and the tests of the migrations'
 * CHECK constraints all read these lists, so a new value is one edit here.
 */

/** Pricing tiers (contract §5): standard pays the floor price, premium +10 %, enterprise +20 %. */
export const tiers = ['standard', 'premium', 'enterprise'] as const;
export type Tier = (typeof tiers)[number];

/** API key scopes (contract §4); the key issued at approval has all four. */
export const scopes = ['catalog:read', 'orders:write', 'orders:read', 'wallet:read'] as const;
export type Scope = (typeof scopes)[number];

/** Partner account states (contract §4). */
export const partnerStatuses = ['pending', 'approved', 'rejected', 'suspended'] as const;
export type PartnerStatus = (typeof partnerStatuses)[number];

/**
 * Order states (contract §7, §13): processing → provisioned | failed; provisioned → cancelled.
 * A group order some of whose eSIMs could not be provisioned ends partially_provisioned.
 */
export const orderStatuses = ['processing', 'provisioned', 'failed', 'cancelled', 'partially_provisioned'] as const;
export type OrderStatus = (typeof orderStatuses)[number];

/** Order kinds (contract §7, §13): a new eSIM, or a bundle added to an existing one. */
export const orderKinds = ['esim', 'topup'] as const;
export type OrderKind = (typeof orderKinds)[number];

/** eSIM states (contract §13): released → installed; cancelled with its first order. */
export const esimStatuses = ['released', 'installed', 'cancelled', 'deleted'] as const;
export type EsimStatus = (typeof esimStatuses)[number];

/** Bundle states (contract §13): queued → active → depleted | expired; cancelled. */
export const bundleStatuses = ['queued', 'active', 'depleted', 'expired', 'cancelled'] as const;
export type BundleStatus = (typeof bundleStatuses)[number];

/** The supplier's notification types (contract §13). */
export const supplierNotificationTypes = ['esim.installed', 'bundle.usage', 'bundle.expired'] as const;
export type SupplierNotificationType = (typeof supplierNotificationTypes)[number];

/**
 * Every report the eSIM lifecycle applies: the connectivity provider's
 * (above) and the SM-DP+'s over ES2+ (contract §8): a failed download or
 * installation, a deletion from the device, or progress that only names
 * the device's EID.
 */
export const esimNotificationTypes = [...supplierNotificationTypes, 'esim.install_failed', 'esim.deleted', 'esim.progress'] as const;
export type EsimNotificationType = (typeof esimNotificationTypes)[number];

/** Wallet ledger entry types (contract §6) and the sign each amount carries. */
export const ledgerEntryTypes = ['topup', 'order_debit', 'refund', 'adjustment'] as const;
export type LedgerEntryType = (typeof ledgerEntryTypes)[number];

/** A reservation of an order's price: held at order time, then captured (provisioned) or released (failed, refunded). */
export const reservationStates = ['held', 'captured', 'released'] as const;
export type ReservationState = (typeof reservationStates)[number];

/** Webhook delivery states (contract §9). */
export const deliveryStatuses = ['pending', 'succeeded', 'failed', 'no_endpoint'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** Partner-facing event types (contract §9). */
export const partnerEventTypes = [
  'payment.paid',
  'provision.provisioned',
  'provision.failed',
  'wallet.credited',
  'webhook.test',
  'esim.installed',
  'esim.usage_threshold',
  'esim.bundle_expired',
  'order.cancelled',
  'wallet.balance_low',
  'webhook.endpoint_disabled',
  'esim.install_failed',
  'esim.deleted',
  'esim.suspended',
  'esim.resumed',
] as const;
export type PartnerEventType = (typeof partnerEventTypes)[number];

/** When a plan's validity starts (contract §5): at its first use (§13), when the profile is installed, or at purchase. */
export const activationPolicies = ['first_use', 'on_install', 'on_purchase'] as const;
export type ActivationPolicy = (typeof activationPolicies)[number];

/** Radio generations a plan's network offers (contract §5), the values of the catalog's `generation` filter. */
export const networkGenerations = ['2G', '3G', '4G', '5G'] as const;
export type NetworkGeneration = (typeof networkGenerations)[number];

/** Narrows a caller's string to a vocabulary; the one membership check every service uses. */
export function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

export { countryCodes, isCountryCode } from './countries.js';

/**
 * Operator roles (contract §10): viewer reads everything; support and finance
 * each add their own writes; admin does everything. support and finance are
 * not ordered against each other, so a route names the role it needs and
 * `roleAllows` says who else may call it.
 */
export const operatorRoles = ['viewer', 'support', 'finance', 'admin'] as const;
export type OperatorRole = (typeof operatorRoles)[number];

/** True when an operator with `role` may make a call that needs `needed`. */
export function roleAllows(role: OperatorRole, needed: OperatorRole): boolean {
  return role === 'admin' || needed === 'viewer' || role === needed;
}
