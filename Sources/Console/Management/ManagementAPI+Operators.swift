import CloudStore

extension ManagementAPI {
    /// The console's operators: their roles and the containers they are limited to.
    static let operatorRoutes: [ManagementRoute] = [
        .json(.get, "/operators", "operators", needs: .reads(.operators)) { actions, _, actor in try actions.operators(as: actor).json },
        .json(.post, "/operators", "addOperator", needs: .changes(.operators), status: .created) { actions, input, actor in
            try actions.addOperator(
                try input.string("name"), password: try input.string("password"),
                role: try OperatorRole(parsing: try input.optionalString("role") ?? OperatorRole.owner.rawValue),
                containers: try input.strings("containers"), as: actor
            ).json
        },
        .json(.put, "/operators/:operator/role", "setOperatorRole", needs: .changes(.operators)) { actions, input, actor in
            try actions.setOperatorRole(
                try OperatorRole(parsing: try input.string("role")), containers: try input.strings("containers"),
                of: input.path("operator"), as: actor
            ).json
        },
        .json(.delete, "/operators/:operator", "removeOperator", needs: .changes(.operators)) { actions, input, actor in
            try actions.removeOperator(input.path("operator"), as: actor).json
        },
    ]
}
