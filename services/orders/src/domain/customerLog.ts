import { maskEmail } from '@esim/telemetry';

/** `***78`: enough for support to match a customer's number, not to call it. */
export function maskPhone(phoneNumber: string): string {
  return `***${phoneNumber.slice(-2)}`;
}

/** The log fields that describe an order; the customer's contact details only masked (contract §12). */
export function orderLogFields(order: { id: string; partnerId: string; planId: string; price: number; email: string; phoneNumber: string }) {
  return {
    orderId: order.id,
    partnerId: order.partnerId,
    planId: order.planId,
    price: order.price,
    email: maskEmail(order.email),
    phone: maskPhone(order.phoneNumber),
  };
}
