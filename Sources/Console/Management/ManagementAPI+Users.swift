import CloudStore
import Foundation

extension ManagementAPI {
    /// A container's app users.
    static let userRoutes: [ManagementRoute] = [
        .json(.get, "/containers/:container/users", "users", needs: .reads(.appUsers)) { actions, input, actor in
            try actions.users(in: try input.container(), search: input.query("search"), as: actor).json
        },
        .json(.post, "/containers/:container/users", "addUser", needs: .changes(.appUsers), status: .created) { actions, input, actor in
            let name = try input.string("name")
            let password = try input.string("password")
            let emailAddress = try input.optionalString("emailAddress")
            let firstName = try input.optionalString("firstName")
            let lastName = try input.optionalString("lastName")
            let discoverable = try input.optionalBool("discoverable") ?? false
            return try actions.addUser(
                in: try input.container(), name: name, password: password, emailAddress: emailAddress, firstName: firstName,
                lastName: lastName, discoverable: discoverable, as: actor
            ).json
        },
        .json(.delete, "/containers/:container/users/:user", "removeUser", needs: .changes(.appUsers)) { actions, input, actor in
            try actions.removeUser(input.path("user"), in: try input.container(), as: actor).json
        },
        .json(.post, "/containers/:container/users/:user/password", "setUserPassword", needs: .changes(.appUsers)) {
            actions, input, actor in
            let password = try input.string("password")
            return try actions.setUserPassword(input.path("user"), in: try input.container(), password: password, as: actor).json
        },
        .json(.post, "/containers/:container/users/:user/discoverable", "setUserDiscoverable", needs: .changes(.appUsers)) {
            actions, input, actor in
            let discoverable = try input.bool("discoverable")
            return try actions.setUserDiscoverable(input.path("user"), in: try input.container(), discoverable: discoverable, as: actor)
                .json
        },
        .json(.post, "/containers/:container/users/:user/sign-out", "signOutUser", needs: .changes(.appUsers)) { actions, input, actor in
            try actions.signOutUser(input.path("user"), in: try input.container(), as: actor).json
        },
        .response(.get, "/containers/:container/users/:user/export", "exportUser", needs: .reads(.appUsers), body: .raw) {
            api, input, actor in
            let export = try api.actions.exportUser(
                input.path("user"), in: try input.container(), environment: input.query("environment"), as: actor)
            return backupDownload(URL(fileURLWithPath: export.path).lastPathComponent, .copy(export.path))
        },
        .json(.post, "/containers/:container/users/:user/erase", "eraseUser", needs: .changes(.appUsers)) { actions, input, actor in
            let reassign = try input.stringMap("reassign")
            return try actions.eraseUser(
                input.path("user"), in: try input.container(), environment: try input.optionalString("environment"), reassign: reassign,
                dryRun: try input.optionalBool("dryRun") ?? false, as: actor
            ).json
        },
    ]
}
