/**
 * Test mode's magic customer e-mails (contract §14): they steer the
 * simulator, the only upstream a test order reaches, with the SKU prefixes it
 * already honours (§8): FAIL- is refused for good (the order fails and is
 * refunded), FLAKY- fails its first two calls with a transient error (the
 * order is retried through the normal path and provisioned). The SKU is
 * rewritten only on the call to the test connectivity provider; the order,
 * its record and its events keep the plan's SKU. A live order is never
 * steered, whatever its e-mail.
 */
const steering: Record<string, string> = {
  'provision.fail@example.com': 'FAIL-',
  'provision.flaky@example.com': 'FLAKY-',
};

/** The SKU to send the test upstream for this order: the plan's, or the plan's behind the magic e-mail's prefix. */
export function steeredSku(sku: string, options: { livemode: boolean; customerEmail: string | undefined }): string {
  if (options.livemode || !options.customerEmail) return sku;
  const prefix = steering[options.customerEmail.trim().toLowerCase()];
  return prefix ? `${prefix}${sku}` : sku;
}
