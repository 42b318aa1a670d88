import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';

/**
 * The JetStream API errors this package reacts to, by the server's error
 * code (nats-server's errors.json), never by the text of the message: the
 * text is for people and changes between server versions.
 */
export const jetStreamErrorCodes = {
  consumerNotFound: JetStreamApiCodes.ConsumerNotFound, // 10014
  streamNotFound: JetStreamApiCodes.StreamNotFound, // 10059
  /** "stream name already in use with a different configuration" */
  streamNameInUse: 10058,
  /** "consumer name already in use" */
  consumerNameInUse: 10013,
  /** "consumer already exists" (a create racing another replica's) */
  consumerAlreadyExists: 10148,
} as const;

export function isJetStreamApiError(error: unknown, which: keyof typeof jetStreamErrorCodes): error is JetStreamApiError {
  return error instanceof JetStreamApiError && error.code === jetStreamErrorCodes[which];
}
