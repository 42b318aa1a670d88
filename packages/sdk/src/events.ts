/** The webhook events (contract §9, §13), until generated from the platform's own schemas. */
export interface WebhookEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}
