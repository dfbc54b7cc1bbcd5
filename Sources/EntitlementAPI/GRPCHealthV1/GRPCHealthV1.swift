/// The `grpc.health.v1` protobuf package (`Protos/grpc/health/v1/health.proto`): the standard
/// gRPC health checking protocol that load balancers and orchestrators probe.
public enum GRPCHealthV1 {}
