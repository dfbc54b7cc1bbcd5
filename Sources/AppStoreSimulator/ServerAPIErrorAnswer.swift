/// An App Store Server API error answer: the HTTP status and Apple's JSON body
/// `{"errorCode": N, "errorMessage": "..."}`, with Apple's codes and messages.
///
/// Clients branch on `errorCode` (4040010 means "ask the other environment", 4040002/4040004/
/// 4040006/5000001 mean "retry"), so the simulator answers with exactly Apple's numbers.
public struct ServerAPIErrorAnswer: Error, Sendable, Hashable {
    public var httpStatus: Int
    public var errorCode: Int
    public var errorMessage: String

    /// Apple's codes begin with their HTTP status (4040010 is a 404), so the status is read
    /// from the code rather than written beside it where the two could disagree.
    init(_ errorCode: Int, _ errorMessage: String) {
        self.httpStatus = errorCode / 10_000
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    public static let generalBadRequest = ServerAPIErrorAnswer(4_000_000, "Bad request.")
    public static let invalidRequestRevision = ServerAPIErrorAnswer(4_000_005, "Invalid request revision.")
    public static let invalidTransactionID = ServerAPIErrorAnswer(4_000_006, "Invalid transaction id.")
    public static let startDateTooFarInPast = ServerAPIErrorAnswer(
        4_000_012, "Invalid request. The start date is earlier than the allowed start date.")
    public static let startDateAfterEndDate = ServerAPIErrorAnswer(
        4_000_013, "Invalid request. The end date precedes the start date or the dates are the same.")
    public static let invalidPaginationToken = ServerAPIErrorAnswer(
        4_000_014, "Invalid request. The pagination token is invalid.")
    public static let invalidStartDate = ServerAPIErrorAnswer(
        4_000_015, "Invalid request. The start date is not valid.")
    public static let invalidEndDate = ServerAPIErrorAnswer(4_000_016, "Invalid request. The end date is not valid.")
    public static let invalidOriginalTransactionID = ServerAPIErrorAnswer(4_000_008, "Invalid original transaction id.")
    public static let invalidExtendByDays = ServerAPIErrorAnswer(4_000_009, "Invalid extend by days value.")
    public static let invalidExtendReasonCode = ServerAPIErrorAnswer(4_000_010, "Invalid reason code.")
    public static let invalidRequestIdentifier = ServerAPIErrorAnswer(4_000_011, "Invalid request identifier.")
    public static let subscriptionExtensionIneligible = ServerAPIErrorAnswer(
        4_030_004, "Forbidden - subscription state ineligible for renewal date extension.")
    public static let subscriptionMaxExtension = ServerAPIErrorAnswer(
        4_030_005, "Forbidden - subscription has reached maximum extension count.")
    public static let invalidCustomerConsented = ServerAPIErrorAnswer(
        4_000_138, "Invalid request. The customer consented field is invalid.")
    public static let invalidDeliveryStatus = ServerAPIErrorAnswer(
        4_000_000, "Invalid request. The delivery status field is invalid.")
    public static let invalidConsumptionPercentage = ServerAPIErrorAnswer(
        4_000_000, "Invalid request. The consumption percentage field is invalid.")
    public static let invalidProductID = ServerAPIErrorAnswer(
        4_000_023, "Invalid request. The product id parameter is invalid.")
    public static let massExtensionNotFound = ServerAPIErrorAnswer(4_040_009, "Mass extension request not found.")
    public static let invalidSort = ServerAPIErrorAnswer(4_000_021, "Invalid request. The sort parameter is invalid.")
    public static let invalidStatus = ServerAPIErrorAnswer(
        4_000_031, "Invalid request. The status parameter is invalid.")
    public static let invalidAppAccountTokenUUID = ServerAPIErrorAnswer(
        4_000_183, "Invalid request. The app account token field must be a valid UUID.")
    public static let familyTransactionNotSupported = ServerAPIErrorAnswer(
        4_000_185, "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
    public static let transactionIDIsNotOriginalTransactionID = ServerAPIErrorAnswer(
        4_000_187, "Invalid request. The transaction ID provided is not an original transaction ID.")
    public static let originalTransactionIDNotFound = ServerAPIErrorAnswer(
        4_040_005, "Original transaction id not found.")
    public static let testNotificationNotFound = ServerAPIErrorAnswer(4_040_008, "Test notification not found.")
    public static let transactionIDNotFound = ServerAPIErrorAnswer(4_040_010, "Transaction id not found.")
    public static let rateLimitExceeded = ServerAPIErrorAnswer(4_290_000, "Rate limit exceeded.")
    public static let generalInternal = ServerAPIErrorAnswer(5_000_000, "An unknown error occurred.")
    public static let generalInternalRetryable = ServerAPIErrorAnswer(
        5_000_001, "An unknown error occurred. Please try again.")

    /// The JSON body Apple sends with this status.
    public var jsonObject: [String: Any] { ["errorCode": errorCode, "errorMessage": errorMessage] }
}
