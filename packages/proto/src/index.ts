// Generated message and service descriptors; regenerate with `npm run proto:gen`.
export * from './gen/common/v1/common_pb.js';
export * as partnersV1 from './gen/partners/v1/partners_pb.js';
export * as catalogV1 from './gen/catalog/v1/catalog_pb.js';
