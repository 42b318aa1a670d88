export { addService, channelTarget, createClient, downstreamDeadline, remainingMs, type CallContext, type CallOptions, type ClientOptions, type ServiceClient, type ServiceHandlers } from './adapter.js';
export { grpcCallers, grpcHosts, platformAccess, testHarnessIdentity, type AccessPolicy } from './access.js';
export { createCa, devTlsFiles, issueCertificate, pkiDir, type KeyPair, type TlsFiles } from './pki.js';
export { callerOf, channelCredentials, identityOf, serverCredentials } from './tls.js';
export { startGrpcServer, type GrpcServer } from './server.js';
export { toStatus, fromServiceError, isDeadlineExceeded } from './errors.js';
