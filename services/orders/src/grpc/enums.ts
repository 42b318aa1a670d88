import { validationError } from '@esim/errors';
import { ordersV1 } from '@esim/proto';
import type { BundleStatus, EsimStatus, OrderKind, OrderStatus, SupplierNotificationType } from '@esim/vocabulary';
import type { TestEsimAction } from '../clients/provisioning.js';

/**
 * The vocabulary's strings and the proto enums, mapped in one place each
 * way. Records keyed by the vocabulary make a new value a compile error
 * here until it is mapped; a number the map does not know is refused.
 */
const orderStatuses: Record<OrderStatus, ordersV1.OrderStatus> = {
  processing: ordersV1.OrderStatus.PROCESSING,
  provisioned: ordersV1.OrderStatus.PROVISIONED,
  failed: ordersV1.OrderStatus.FAILED,
  cancelled: ordersV1.OrderStatus.CANCELLED,
  partially_provisioned: ordersV1.OrderStatus.PARTIALLY_PROVISIONED,
};

const orderKinds: Record<OrderKind, ordersV1.OrderKind> = {
  esim: ordersV1.OrderKind.ESIM,
  topup: ordersV1.OrderKind.TOPUP,
};

const esimStatuses: Record<EsimStatus, ordersV1.EsimStatus> = {
  released: ordersV1.EsimStatus.RELEASED,
  installed: ordersV1.EsimStatus.INSTALLED,
  cancelled: ordersV1.EsimStatus.CANCELLED,
  deleted: ordersV1.EsimStatus.DELETED,
};

const bundleStatuses: Record<BundleStatus, ordersV1.BundleStatus> = {
  queued: ordersV1.BundleStatus.QUEUED,
  active: ordersV1.BundleStatus.ACTIVE,
  depleted: ordersV1.BundleStatus.DEPLETED,
  expired: ordersV1.BundleStatus.EXPIRED,
  cancelled: ordersV1.BundleStatus.CANCELLED,
};

const notificationTypes: Record<SupplierNotificationType, ordersV1.SupplierNotificationType> = {
  'esim.installed': ordersV1.SupplierNotificationType.ESIM_INSTALLED,
  'bundle.usage': ordersV1.SupplierNotificationType.BUNDLE_USAGE,
  'bundle.expired': ordersV1.SupplierNotificationType.BUNDLE_EXPIRED,
};

function reverse<K extends string, V extends number>(map: Record<K, V>): Map<number, K> {
  return new Map(Object.entries(map).map(([key, value]) => [value as number, key as K]));
}

const fromOrderStatus = reverse(orderStatuses);
const fromEsimStatus = reverse(esimStatuses);
const fromNotificationType = reverse(notificationTypes);

export const orderStatusToProto = (status: OrderStatus) => orderStatuses[status];
export const orderKindToProto = (kind: OrderKind) => orderKinds[kind];
export const esimStatusToProto = (status: EsimStatus) => esimStatuses[status];
export const bundleStatusToProto = (status: BundleStatus) => bundleStatuses[status];

/** A list filter: UNSPECIFIED is "every status". */
export function orderStatusFilter(value: ordersV1.OrderStatus): OrderStatus | undefined {
  if (value === ordersV1.OrderStatus.UNSPECIFIED) return undefined;
  const status = fromOrderStatus.get(value);
  if (!status) throw validationError([{ path: 'status', message: `unknown order status ${value}` }]);
  return status;
}

export function esimStatusFilter(value: ordersV1.EsimStatus): EsimStatus | undefined {
  if (value === ordersV1.EsimStatus.UNSPECIFIED) return undefined;
  const status = fromEsimStatus.get(value);
  if (!status) throw validationError([{ path: 'status', message: `unknown eSIM status ${value}` }]);
  return status;
}

/** '' for UNSPECIFIED or an unknown number: the use case refuses it with the list of types. */
export const notificationTypeFromProto = (value: ordersV1.SupplierNotificationType): string => fromNotificationType.get(value) ?? '';

/** A test helper's action (§14); an unknown number is refused. */
export function testEsimActionFromProto(action: ordersV1.TestEsimAction, addMb: number): TestEsimAction {
  switch (action) {
    case ordersV1.TestEsimAction.INSTALL:
      return { kind: 'install' };
    case ordersV1.TestEsimAction.USAGE:
      return { kind: 'usage', addMb };
    case ordersV1.TestEsimAction.EXPIRE:
      return { kind: 'expire' };
    case ordersV1.TestEsimAction.DELETE:
      return { kind: 'delete' };
    default:
      throw validationError([{ path: 'action', message: 'must be install, usage, expire or delete' }]);
  }
}
