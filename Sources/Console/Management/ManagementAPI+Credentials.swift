import CloudStore

extension ManagementAPI {
    /// A container's API tokens and server-to-server keys.
    static let credentialRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/tokens", "apiTokens", needs: .reads(.credentials)) { actions, input, actor in
            try actions.apiTokens(in: try input.container(), as: actor).json
        },
        .json(.post, "/containers/:container/tokens", "createAPIToken", needs: .changes(.credentials), status: .created) {
            actions, input, actor in
            let environment = try input.optionalString("environment") ?? "development"
            let name = try input.optionalString("name")
            let allowedOrigins = try input.strings("allowedOrigins")
            let signInCallback = try input.optionalString("signInCallback")
            return try actions.createAPIToken(
                in: try input.container(), environment: try Environment(parsing: environment), name: name, allowedOrigins: allowedOrigins,
                signInCallback: signInCallback, as: actor
            ).json
        },
        .json(.delete, "/containers/:container/tokens/:token", "revokeAPIToken", needs: .changes(.credentials)) { actions, input, actor in
            try actions.revokeAPIToken(input.path("token"), in: try input.container(), as: actor).json
        },
        .json(.get, "/containers/:container/keys", "serverKeys", needs: .reads(.credentials)) { actions, input, actor in
            try actions.serverKeys(in: try input.container(), as: actor).json
        },
        .json(.post, "/containers/:container/keys", "addServerKey", needs: .changes(.credentials), status: .created) {
            actions, input, actor in
            let environment = try input.optionalString("environment") ?? "development"
            let publicKeyPEM = try input.string("publicKey")
            let name = try input.optionalString("name")
            return try actions.addServerKey(
                in: try input.container(), environment: try Environment(parsing: environment), publicKeyPEM: publicKeyPEM, name: name,
                as: actor
            ).json
        },
        .json(.delete, "/containers/:container/keys/:key", "revokeServerKey", needs: .changes(.credentials)) { actions, input, actor in
            try actions.revokeServerKey(input.path("key"), in: try input.container(), as: actor).json
        },
        // A token or key names itself: these revoke one without knowing its container.
        .json(.delete, "/tokens/:token", "revokeAPIToken", needs: .changes(.credentials)) { actions, input, actor in
            try actions.revokeAPIToken(input.path("token"), in: nil, as: actor).json
        },
        .json(.delete, "/keys/:key", "revokeServerKey", needs: .changes(.credentials)) { actions, input, actor in
            try actions.revokeServerKey(input.path("key"), in: nil, as: actor).json
        },
    ]
}
