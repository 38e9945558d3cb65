import CloudKitWire
import CloudStore

/// `tokens/create` and `tokens/register`: push tokens and the web courier URL clients long-poll.
enum TokensEndpoints {
    static let apnsEnvironments: Set<String> = ["development", "production"]

    private static func apnsEnvironment(_ context: APIContext, required: Bool) throws -> String {
        let wire = context.body["apnsEnvironment"]
        guard let value = try wire.string() else {
            if required { throw WebServicesError.badRequest("\(wire.path) is required") }
            return context.environment.rawValue
        }
        guard Self.apnsEnvironments.contains(value) else {
            throw WebServicesError.badRequest("\(wire.path) must be development or production")
        }
        return value
    }

    /// `tokens/create`: `{apnsEnvironment}` → `{apnsEnvironment, apnsToken, webcourierURL}`.
    static func create(_ context: APIContext) throws -> JSONValue {
        let environment = try apnsEnvironment(context, required: false)
        let token = try context.store.createPushToken(
            context.container, context.environment, apnsEnvironment: environment, caller: context.caller,
            session: context.authentication.session?.id, clientAddress: context.clientAddress)
        return json(token, apnsEnvironment: environment, context)
    }

    /// `tokens/register`: `{apnsEnvironment, apnsToken}` → `{apnsEnvironment, apnsToken, webcourierURL}`,
    /// as `tokens/create` answers: CloudKit JS 2 replaces the token it holds with this answer.
    static func register(_ context: APIContext) throws -> JSONValue {
        let environment = try apnsEnvironment(context, required: true)
        let value = try context.body["apnsToken"].requiredString()
        let token = try context.store.registerPushToken(
            value, context.container, context.environment, apnsEnvironment: environment, caller: context.caller,
            session: context.authentication.session?.id, clientAddress: context.clientAddress, trace: context.trace)
        return json(token, apnsEnvironment: environment, context)
    }

    private static func json(_ token: PushToken, apnsEnvironment: String, _ context: APIContext) -> JSONValue {
        .object([
            "apnsEnvironment": .string(apnsEnvironment), "apnsToken": .string(token.token),
            "webcourierURL": .string(CourierEndpoint.url(base: context.baseURL, token: token.token)),
        ])
    }
}
