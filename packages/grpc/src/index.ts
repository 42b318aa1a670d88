export { addService, channelTarget, createClient, type CallContext, type ServiceClient, type ServiceHandlers } from './adapter.js';
export { startGrpcServer, type GrpcServer } from './server.js';
export { toStatus, fromServiceError } from './errors.js';
