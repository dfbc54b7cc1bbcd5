/// The `entitlement.v1` protobuf package (`Protos/entitlement/v1/entitlement.proto`).
///
/// A namespace because the domain module `Entitlements` already owns the plain names
/// (`Entitlement`, `Environment`, `HistoryEvent`): these are the wire shapes, and the service
/// layer maps between the two explicitly. Each message lives in its own file as an extension.
public enum EntitlementV1 {}
