export { events, streams, partnerOrderView, partnerEsimView, partnerBundleView, ledgerEntryView, webhookEndpointView, partnerNotification, type PartnerNotification, type EventEnvelope, type EventData, type EventType, type StreamName } from './contracts.js';
export { namespace, type Namespace } from './namespace.js';
export { lanes, servedLanes, laneOf, laneSubject, laneDurable, consumedLanes, isLaned, parseLanes, type Lane } from './lanes.js';
export { onEveryReplica } from './everyReplica.js';
export { connectNats, ensureStreams, natsConnectOptions, type NatsConnection, type NatsSecurity, type StreamOptions } from './nats.js';
export { enqueueEvent, eventTablesRetention, publishEvent, pruneOutbox, pruneProcessedEvents, outboxRetentionDays, processedRetentionDays, startOutboxRelay, type OutboxRelay } from './outbox.js';
export { startConsumer, defaultRetry, maxBatch, PermanentEventError, type ConsumerSpec, type RunningConsumer } from './consumer.js';
export { exactlyOnce, exactlyOnceAroundCall, exactlyOnceBatch, EventInProgressError, type BatchApplier } from './exactlyOnce.js';
export { retryDelayMs, shortestRetryDelayMs, type RetryPolicy } from './retry.js';
export {
  deadLetterStream,
  ensureDeadLetterStream,
  deadLetterHeaders,
  redriveDeadLetters,
  countDeadLetters,
  listDeadLetters,
  describeDeadLetter,
  isKnownConsumer,
  type DeadLetterReason,
  type DeadLetterSummary,
  type StoredDeadLetter,
} from './deadLetter.js';
export { isJetStreamApiError, jetStreamErrorCodes } from './jsErrors.js';
export { migrateEventTables, pendingEventTableMigrations } from './tables.js';
