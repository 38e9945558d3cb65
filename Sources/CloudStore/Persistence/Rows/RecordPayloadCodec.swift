/// Encodes a record's fields into the compact binary payload stored with the record, and back.
///
/// Layout: a format byte, a varint field count, then per field a length-prefixed UTF-8 name and
/// a tagged value. The format is ours alone; decoding refuses anything malformed with an error
/// instead of trusting lengths.
enum RecordPayloadCodec {
    static let damaged = CloudStoreError.internalError("A stored record payload is damaged")
    private static let formatVersion: UInt8 = 1
    private static let listFlag: UInt8 = 0x80

    // MARK: - Encoding

    /// The payload for `fields`, with names in sorted order so equal records encode equally.
    static func encode(_ fields: [String: FieldValue]) -> [UInt8] {
        var writer = BinaryWriter()
        writer.bytes.reserveCapacity(64 + fields.count * 24)
        writer.byte(formatVersion)
        writer.varint(UInt64(fields.count))
        // In name order, so that equal fields make equal bytes.
        Record.forEachInNameOrder(fields) { _, name, value in
            writer.string(name)
            encode(value, into: &writer)
        }
        return writer.bytes
    }

    private static func encode(_ value: FieldValue, into writer: inout BinaryWriter) {
        if case .list(let scalar, let elements) = value {
            writer.byte(code(of: scalar) | listFlag)
            writer.varint(UInt64(elements.count))
            for element in elements { encodeScalar(element, into: &writer) }
        } else {
            writer.byte(code(of: value.type.scalar))
            encodeScalar(value, into: &writer)
        }
    }

    private static func encodeScalar(_ value: FieldValue, into writer: inout BinaryWriter) {
        switch value {
        case .string(let string): writer.string(string)
        case .int64(let integer), .timestamp(let integer): writer.signed(integer)
        case .double(let double): writer.double(double)
        case .bytes(let bytes): writer.blob(bytes)
        case .reference(let reference):
            writer.string(reference.recordName)
            writer.byte(actionCode(reference.action))
            if let zoneID = reference.zoneID {
                writer.byte(1)
                writer.string(zoneID.zoneName)
                writer.string(zoneID.ownerRecordName)
            } else {
                writer.byte(0)
            }
        case .asset(let asset):
            writer.optionalString(asset.fileChecksum)
            writer.optionalSigned(asset.size)
            writer.optionalString(asset.referenceChecksum)
            writer.optionalString(asset.wrappingKey)
            writer.optionalString(asset.receipt)
            writer.optionalString(asset.downloadURL)
        case .location(let location):
            writer.double(location.latitude)
            writer.double(location.longitude)
            writer.optionalDouble(location.horizontalAccuracy)
            writer.optionalDouble(location.verticalAccuracy)
            writer.optionalDouble(location.altitude)
            writer.optionalDouble(location.speed)
            writer.optionalDouble(location.course)
            writer.optionalSigned(location.timestamp)
        case .list:
            // Lists never nest; FieldValue.isWellFormed is checked before anything is stored.
            break
        }
    }

    // MARK: - Decoding

    /// The fields stored in `payload`.
    /// - Throws: ``CloudStoreError/internalError(_:)`` when the payload is damaged.
    static func decode(_ payload: [UInt8]) throws -> [String: FieldValue] {
        var reader = BinaryReader(bytes: payload, damaged: damaged)
        guard try reader.byte() == formatVersion else { throw RecordPayloadCodec.damaged }
        let count = try reader.count()
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(count)
        for _ in 0..<count {
            let name = try reader.string()
            let tag = try reader.byte()
            let scalar = try scalarType(code: tag & ~listFlag)
            if tag & listFlag != 0 {
                let elementCount = try reader.count()
                var elements: [FieldValue] = []
                elements.reserveCapacity(elementCount)
                for _ in 0..<elementCount { elements.append(try decodeScalar(scalar, from: &reader)) }
                fields[name] = .list(scalar, elements)
            } else {
                fields[name] = try decodeScalar(scalar, from: &reader)
            }
        }
        guard reader.isAtEnd else { throw RecordPayloadCodec.damaged }
        return fields
    }

    private static func decodeScalar(_ scalar: ScalarType, from reader: inout BinaryReader) throws -> FieldValue {
        switch scalar {
        case .string: return .string(try reader.string())
        case .int64: return .int64(try reader.signed())
        case .timestamp: return .timestamp(try reader.signed())
        case .double: return .double(try reader.double())
        case .bytes: return .bytes(try reader.blob())
        case .reference:
            let name = try reader.string()
            let action = try action(code: try reader.byte())
            var zoneID: ZoneID?
            if try reader.byte() == 1 {
                zoneID = ZoneID(zoneName: try reader.string(), ownerRecordName: try reader.string())
            }
            return .reference(Reference(recordName: name, zoneID: zoneID, action: action))
        case .asset:
            return .asset(
                Asset(
                    fileChecksum: try reader.optionalString(), size: try reader.optionalSigned(),
                    referenceChecksum: try reader.optionalString(), wrappingKey: try reader.optionalString(),
                    receipt: try reader.optionalString(), downloadURL: try reader.optionalString()))
        case .location:
            return .location(
                Location(
                    latitude: try reader.double(), longitude: try reader.double(),
                    horizontalAccuracy: try reader.optionalDouble(), verticalAccuracy: try reader.optionalDouble(),
                    altitude: try reader.optionalDouble(), speed: try reader.optionalDouble(),
                    course: try reader.optionalDouble(), timestamp: try reader.optionalSigned()))
        }
    }

    // MARK: - Codes

    private static let scalarCodes: [ScalarType] = [.string, .int64, .double, .timestamp, .bytes, .reference, .asset, .location]

    private static func code(of scalar: ScalarType) -> UInt8 { UInt8(scalarCodes.firstIndex(of: scalar)! + 1) }

    private static func scalarType(code: UInt8) throws -> ScalarType {
        guard code >= 1, Int(code) <= scalarCodes.count else { throw RecordPayloadCodec.damaged }
        return scalarCodes[Int(code) - 1]
    }

    private static func actionCode(_ action: Reference.Action) -> UInt8 {
        switch action {
        case .none: 0
        case .deleteSelf: 1
        case .validate: 2
        }
    }

    private static func action(code: UInt8) throws -> Reference.Action {
        switch code {
        case 0: .none
        case 1: .deleteSelf
        case 2: .validate
        default: throw RecordPayloadCodec.damaged
        }
    }
}
