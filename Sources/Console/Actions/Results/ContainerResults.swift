import CloudKitWire
import CloudStore

/// A container, with what each of its environments holds.
public struct ContainerView: ManagementResult, Equatable {
    /// What one environment holds, as the store counts it while it writes.
    public struct Figures: Sendable, Equatable {
        /// Its records.
        public var records: Int64
        /// The bytes of its records.
        public var recordBytes: Int64
        /// The bytes of its files (assets).
        public var fileBytes: Int64
    }

    /// The identifier.
    public var identifier: ContainerIdentifier
    /// When it was created, in milliseconds since 1970.
    public var created: Int64
    /// The figures of each environment, development first.
    public var environments: [Environment: Figures]

    init(_ info: ContainerInfo, usage: [Environment: EnvironmentUsage]) {
        identifier = info.identifier
        created = info.created
        environments = Dictionary(
            uniqueKeysWithValues: Environment.allCases.map { environment in
                let figures = usage[environment] ?? EnvironmentUsage(records: 0, recordBytes: 0, fileBytes: 0)
                return (environment, Figures(records: figures.records, recordBytes: figures.recordBytes, fileBytes: figures.fileBytes))
            })
    }

    /// The figures of `environment`, zero when none were given.
    public subscript(environment: Environment) -> Figures { environments[environment] ?? Figures(records: 0, recordBytes: 0, fileBytes: 0) }

    public var json: JSONValue {
        var object = JSONObject()
        for environment in Environment.allCases {
            let figures = self[environment]
            object[environment.rawValue] = [
                "records": .integer(figures.records), "recordBytes": .integer(figures.recordBytes),
                "fileBytes": .integer(figures.fileBytes),
            ]
        }
        return ["identifier": .string(identifier.rawValue), "created": .integer(created), "environments": .object(object)]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        let text = try fields.string("identifier")
        do { identifier = try ContainerIdentifier(text) } catch {
            throw MalformedAnswer(description: "The server's answer names no container '\(text)'")
        }
        created = try fields.int64("created")
        let figures = try AnswerFields(try fields.value("environments"))
        var environments: [Environment: Figures] = [:]
        for environment in Environment.allCases {
            let one = try AnswerFields(try figures.value(environment.rawValue))
            environments[environment] = Figures(
                records: try one.int64("records"), recordBytes: try one.int64("recordBytes"), fileBytes: try one.int64("fileBytes"))
        }
        self.environments = environments
    }
}

/// Every container.
public struct ContainersView: ManagementResult, Equatable {
    /// The containers, in identifier order.
    public var containers: [ContainerView]

    init(_ containers: [ContainerView]) { self.containers = containers }

    public var json: JSONValue { ["containers": .array(containers.map(\.json))] }

    public init(json: JSONValue) throws { containers = try AnswerFields(json).array("containers", ContainerView.init(json:)) }
}
