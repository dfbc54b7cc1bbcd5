import Entitlements
import Foundation

extension AppStoreServerClient {
    /// `POST /inApps/v1/subscriptions/extend/mass`: Apple extends every active subscription of
    /// `productID` (in `storefronts`, ISO 3166 alpha-3 codes; all when empty) by `extendByDays`,
    /// after an outage. It works in the background: follow it with
    /// ``massExtensionStatus(productID:requestIdentifier:environment:deadline:)``. The same
    /// `requestIdentifier` again starts nothing new.
    public func extendAllRenewalDates(
        productID: String, extendByDays: Int, reasonCode: Int, requestIdentifier: String, storefronts: [String],
        environment: Environment, deadline: ContinuousClock.Instant? = nil
    ) async throws {
        var object: [String: Any] = [
            "productId": productID, "extendByDays": extendByDays, "extendReasonCode": reasonCode,
            "requestIdentifier": requestIdentifier,
        ]
        if !storefronts.isEmpty { object["storefrontCountryCodes"] = storefronts }
        let body = Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        try await request(.massExtension, environment: environment, method: "POST",
                          path: "inApps/v1/subscriptions/extend/mass", body: body,
                          deadline: deadline ?? defaultDeadline()) { _ in () }
            .value(in: environment, orNotFound: "knows no such app")
    }

    /// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`.
    public func massExtensionStatus(
        productID: String, requestIdentifier: String, environment: Environment,
        deadline: ContinuousClock.Instant? = nil
    ) async throws -> MassExtensionStatus {
        let path = "inApps/v1/subscriptions/extend/mass/" + Self.pathSegment(productID) + "/"
            + Self.pathSegment(requestIdentifier)
        return try await request(.massExtension, environment: environment, method: "GET", path: path,
                                 deadline: deadline ?? defaultDeadline(), read: ServerAPIBody.massStatus)
            .value(in: environment, orNotFound: "knows no mass extension \(requestIdentifier) of \(productID)")
    }
}

/// Where one mass extension stands.
public struct MassExtensionStatus: Sendable, Equatable {
    public var requestIdentifier: String
    public var complete: Bool
    /// When it completed (Unix ms); nil while running.
    public var completeDateMs: Int64?
    public var succeededCount: Int
    public var failedCount: Int
}

extension ServerAPIBody {
    static func massStatus(_ bytes: [UInt8]) throws -> MassExtensionStatus {
        let object = try object(bytes)
        return MassExtensionStatus(
            requestIdentifier: object["requestIdentifier"] as? String ?? "",
            complete: object["complete"] as? Bool ?? false,
            completeDateMs: integer(object["completeDate"]).map(Int64.init),
            succeededCount: integer(object["succeededCount"]) ?? 0, failedCount: integer(object["failedCount"]) ?? 0)
    }
}
