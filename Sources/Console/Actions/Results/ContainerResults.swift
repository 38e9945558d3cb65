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
        /// The bytes of the record versions its history and trash keep, counted in storage.
        public var historyBytes: Int64 = 0

        /// The figures of an environment's usage.
        init(_ usage: EnvironmentUsage) {
            self.init(records: usage.records, recordBytes: usage.recordBytes, fileBytes: usage.fileBytes, historyBytes: usage.historyBytes)
        }

        init(records: Int64, recordBytes: Int64, fileBytes: Int64, historyBytes: Int64 = 0) {
            self.records = records
            self.recordBytes = recordBytes
            self.fileBytes = fileBytes
            self.historyBytes = historyBytes
        }

        /// Storage, as ``EnvironmentUsage/storageBytes`` counts it: the records' and their history's bytes.
        public var storageBytes: Int64 { EnvironmentUsage.storageBytes(ofRecordBytes: recordBytes) + historyBytes }

        /// The figures as the management API answers them: the usage answer's with the
        /// history's bytes, the containers answer's (as it always was) without.
        func json(withHistory: Bool) -> JSONValue {
            var object: JSONObject = [
                "records": .integer(records), "recordBytes": .integer(recordBytes), "fileBytes": .integer(fileBytes),
            ]
            if withHistory { object["historyBytes"] = .integer(historyBytes) }
            return .object(object)
        }

        /// The figures from a management API answer (one without `historyBytes` counts none).
        init(json: JSONValue) throws {
            let fields = try AnswerFields(json)
            self.init(
                records: try fields.int64("records"), recordBytes: try fields.int64("recordBytes"),
                fileBytes: try fields.int64("fileBytes"),
                historyBytes: try fields.optionalInt64("historyBytes") ?? 0)
        }
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
                (environment, Figures(usage[environment] ?? EnvironmentUsage(records: 0, recordBytes: 0, fileBytes: 0)))
            })
    }

    /// The figures of `environment`, zero when none were given.
    public subscript(environment: Environment) -> Figures { environments[environment] ?? Figures(records: 0, recordBytes: 0, fileBytes: 0) }

    public var json: JSONValue {
        var object = JSONObject()
        for environment in Environment.allCases {
            object[environment.rawValue] = self[environment].json(withHistory: false)
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
            environments[environment] = try Figures(json: try figures.value(environment.rawValue))
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
