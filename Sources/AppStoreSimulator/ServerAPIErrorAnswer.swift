/// An App Store Server API error answer: the HTTP status and Apple's JSON body
/// `{"errorCode": N, "errorMessage": "..."}`, with Apple's codes and messages.
///
/// Clients branch on `errorCode` (4040010 means "ask the other environment", 4040002/4040004/
/// 4040006/5000001 mean "retry"), so the simulator answers with exactly Apple's numbers.
public struct ServerAPIErrorAnswer: Error, Sendable, Hashable {
    public var httpStatus: Int
    public var errorCode: Int
    public var errorMessage: String

    public static let generalBadRequest = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_000, errorMessage: "Bad request.")
    public static let invalidRequestRevision = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_005, errorMessage: "Invalid request revision.")
    public static let invalidTransactionID = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_006, errorMessage: "Invalid transaction id.")
    public static let startDateTooFarInPast = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_012,
        errorMessage: "Invalid request. The start date is earlier than the allowed start date.")
    public static let startDateAfterEndDate = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_013,
        errorMessage: "Invalid request. The end date precedes the start date or the dates are the same.")
    public static let invalidPaginationToken = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_014, errorMessage: "Invalid request. The pagination token is invalid.")
    public static let invalidStartDate = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_015, errorMessage: "Invalid request. The start date is not valid.")
    public static let invalidEndDate = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_016, errorMessage: "Invalid request. The end date is not valid.")
    public static let invalidOriginalTransactionID = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_008, errorMessage: "Invalid original transaction id.")
    public static let invalidExtendByDays = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_009, errorMessage: "Invalid extend by days value.")
    public static let invalidExtendReasonCode = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_010, errorMessage: "Invalid reason code.")
    public static let invalidRequestIdentifier = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_011, errorMessage: "Invalid request identifier.")
    public static let subscriptionExtensionIneligible = ServerAPIErrorAnswer(
        httpStatus: 403, errorCode: 4_030_004,
        errorMessage: "Forbidden - subscription state ineligible for renewal date extension.")
    public static let subscriptionMaxExtension = ServerAPIErrorAnswer(
        httpStatus: 403, errorCode: 4_030_005,
        errorMessage: "Forbidden - subscription has reached maximum extension count.")
    public static let invalidCustomerConsented = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_138,
        errorMessage: "Invalid request. The customer consented field is invalid.")
    public static let invalidDeliveryStatus = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_000, errorMessage: "Invalid request. The delivery status field is invalid.")
    public static let invalidConsumptionPercentage = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_000,
        errorMessage: "Invalid request. The consumption percentage field is invalid.")
    public static let invalidProductID = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_023, errorMessage: "Invalid request. The product id parameter is invalid.")
    public static let massExtensionNotFound = ServerAPIErrorAnswer(
        httpStatus: 404, errorCode: 4_040_009, errorMessage: "Mass extension request not found.")
    public static let invalidSort = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_021, errorMessage: "Invalid request. The sort parameter is invalid.")
    public static let invalidStatus = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_031, errorMessage: "Invalid request. The status parameter is invalid.")
    public static let invalidAppAccountTokenUUID = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_183,
        errorMessage: "Invalid request. The app account token field must be a valid UUID.")
    public static let familyTransactionNotSupported = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_185,
        errorMessage: "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
    public static let transactionIDIsNotOriginalTransactionID = ServerAPIErrorAnswer(
        httpStatus: 400, errorCode: 4_000_187,
        errorMessage: "Invalid request. The transaction ID provided is not an original transaction ID.")
    public static let originalTransactionIDNotFound = ServerAPIErrorAnswer(
        httpStatus: 404, errorCode: 4_040_005, errorMessage: "Original transaction id not found.")
    public static let testNotificationNotFound = ServerAPIErrorAnswer(
        httpStatus: 404, errorCode: 4_040_008, errorMessage: "Test notification not found.")
    public static let transactionIDNotFound = ServerAPIErrorAnswer(
        httpStatus: 404, errorCode: 4_040_010, errorMessage: "Transaction id not found.")
    public static let rateLimitExceeded = ServerAPIErrorAnswer(
        httpStatus: 429, errorCode: 4_290_000, errorMessage: "Rate limit exceeded.")
    public static let generalInternal = ServerAPIErrorAnswer(
        httpStatus: 500, errorCode: 5_000_000, errorMessage: "An unknown error occurred.")
    public static let generalInternalRetryable = ServerAPIErrorAnswer(
        httpStatus: 500, errorCode: 5_000_001, errorMessage: "An unknown error occurred. Please try again.")

    /// The JSON body Apple sends with this status.
    public var jsonObject: [String: Any] { ["errorCode": errorCode, "errorMessage": errorMessage] }
}
