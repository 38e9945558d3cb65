import CloudStore

extension ManagementAPI {
    /// A container's app users.
    static let userRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/users", "users") { actions, input, actor in
            try actions.users(in: input.path("container"), search: input.query("search"), as: actor)
        },
        .json(.post, "/containers/:container/users", "addUser", status: .created) { actions, input, actor in
            try actions.addUser(
                in: input.path("container"), name: try input.string("name"), password: try input.string("password"),
                emailAddress: try input.optionalString("emailAddress"), firstName: try input.optionalString("firstName"),
                lastName: try input.optionalString("lastName"), discoverable: try input.optionalBool("discoverable") ?? false, as: actor)
        },
        .json(.delete, "/containers/:container/users/:user", "removeUser") { actions, input, actor in
            try actions.removeUser(input.path("user"), in: input.path("container"), as: actor)
        },
        .json(.post, "/containers/:container/users/:user/password", "setUserPassword") { actions, input, actor in
            try actions.setUserPassword(input.path("user"), in: input.path("container"), password: try input.string("password"), as: actor)
        },
        .json(.post, "/containers/:container/users/:user/discoverable", "setUserDiscoverable") { actions, input, actor in
            try actions.setUserDiscoverable(input.path("user"), in: input.path("container"), discoverable: try input.bool("discoverable"), as: actor)
        },
        .json(.post, "/containers/:container/users/:user/sign-out", "signOutUser") { actions, input, actor in
            try actions.signOutUser(input.path("user"), in: input.path("container"), as: actor)
        },
    ]
}
