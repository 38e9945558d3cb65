import CloudKitWire
import CloudStore
import Testing

/// Every CloudStore error reaches the client with the `serverErrorCode` and HTTP status of the
/// reference's table, and an internal cause never leaves the server.
@Suite struct CloudKitErrorMappingTests {
    @Test func eachStoreErrorHasItsCodeAndStatus() {
        let zone = ZoneID(zoneName: "Work", ownerRecordName: "_owner")
        let cases: [(CloudStoreError, String, Int)] = [
            (.badRequest("x"), "BAD_REQUEST", 400), (.notFound("x"), "NOT_FOUND", 404), (.zoneNotFound(zone), "ZONE_NOT_FOUND", 404),
            (.conflict("x", serverRecord: nil), "CONFLICT", 409), (.exists("x"), "EXISTS", 409), (.atomicFailure("x"), "ATOMIC_ERROR", 400),
            (.accessDenied("x"), "ACCESS_DENIED", 403), (.authenticationRequired("x"), "AUTHENTICATION_REQUIRED", 421),
            (.authenticationFailed("x"), "AUTHENTICATION_FAILED", 401), (.validatingReference("x"), "VALIDATING_REFERENCE_ERROR", 412),
            (.quotaExceeded("x"), "QUOTA_EXCEEDED", 413), (.throttled("x", retryAfter: 3), "THROTTLED", 429),
            (.tryAgainLater("x"), "TRY_AGAIN_LATER", 503), (.changeTokenExpired("fetch everything again"), "CHANGE_TOKEN_EXPIRED", 400),
            (.internalError("SELECT secret FROM somewhere"), "INTERNAL_ERROR", 500),
        ]
        for (error, code, status) in cases {
            let mapped = CloudKitError(error)
            #expect(mapped.serverErrorCode == code && mapped.status == status, "\(error)")
        }
        #expect(CloudKitError(.changeTokenExpired("fetch everything again")).reason == "fetch everything again")
        #expect(!CloudKitError(.internalError("SELECT secret FROM somewhere")).reason.contains("SELECT"))
        #expect(CloudKitError(.throttled("x", retryAfter: 3)).retryAfter == 3)
    }
}
