/// Runs `handler` for `request`: an error that knows its response gives it; any other error is
/// reported to `failed` and answered 500. The one place the server and ``InProcessResponder``
/// turn a handler's outcome into a response.
func invoke(_ handler: HTTPHandler, for request: HTTPRequest, failed: (any Error) -> Void) -> HTTPResponse {
    do {
        return try handler(request)
    } catch let error as any HTTPResponseConvertibleError {
        return error.httpResponse
    } catch {
        failed(error)
        return .error(.internalServerError)
    }
}
