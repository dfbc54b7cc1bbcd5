extension AppStoreServerClient {
    /// The fuzz harness's entry: every reader of Apple's JSON answers on `bytes`. Each must
    /// return a value or throw on any input, never trap: the bytes come from the network.
    public static func fuzzReadAnswers(_ bytes: UnsafeRawBufferPointer) {
        let body = Array(bytes)
        _ = ServerAPIBody.error(body)
        _ = try? ServerAPIBody.historyPage(body)
        _ = try? ServerAPIBody.statuses(body, environment: .production)
        _ = try? ServerAPIBody.transactionInfo(body, environment: .sandbox)
        _ = try? ServerAPIBody.notificationHistoryPage(body)
        _ = try? ServerAPIBody.renewalExtension(body, environment: .production)
        _ = try? ServerAPIBody.orderLookup(body, environment: .production)
        _ = try? ServerAPIBody.testStatus(body)
        _ = try? ServerAPIBody.massStatus(body)
    }
}
