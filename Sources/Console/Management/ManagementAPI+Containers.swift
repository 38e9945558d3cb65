import CloudStore

extension ManagementAPI {
    /// The containers.
    static let containerRoutes: [ManagementRoute] = [
        .json(.get, "/containers", "containers", needs: .reads(.containers)) { actions, _, actor in try actions.containers(as: actor).json
        },
        .json(.post, "/containers", "createContainer", needs: .changes(.containers), status: .created) { actions, input, actor in
            try actions.createContainer(try input.string("identifier"), as: actor).json
        },
        .json(.get, "/containers/:container", "container", needs: .reads(.containers)) { actions, input, actor in
            try actions.container(input.path("container"), as: actor).json
        },
    ]
}
