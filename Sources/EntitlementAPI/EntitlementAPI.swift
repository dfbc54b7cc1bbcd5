// EntitlementAPI's messages and enums are generated at build time from the .proto files that
// protos.txt lists, by ProtoCodegenPlugin (docs/api.md says how to add a field). SwiftPM builds a
// target only when it has a Swift file of its own, even if a plugin generates the rest
// (swiftlang/swift-package-manager#8061), hence this file. Hand-written additions to the
// generated types (behaviour the .proto cannot state) go in extensions beside it.
