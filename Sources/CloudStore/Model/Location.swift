/// A geographic location, as CloudKit's Location dictionary holds it.
public struct Location: Hashable, Sendable {
    /// Degrees north of the equator, −90…90.
    public var latitude: Double
    /// Degrees east of Greenwich, −180…180.
    public var longitude: Double
    /// Radius of uncertainty of the position, in meters.
    public var horizontalAccuracy: Double?
    /// Uncertainty of the altitude, in meters.
    public var verticalAccuracy: Double?
    /// Meters above sea level.
    public var altitude: Double?
    /// Meters per second.
    public var speed: Double?
    /// Degrees clockwise from north.
    public var course: Double?
    /// When the location was taken, in milliseconds since 1970.
    public var timestamp: Int64?

    /// Creates a location.
    public init(
        latitude: Double, longitude: Double, horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil,
        altitude: Double? = nil, speed: Double? = nil, course: Double? = nil, timestamp: Int64? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
    }

    /// Whether latitude and longitude are finite and within their ranges.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }

    /// Great-circle distance to `other` in meters (haversine on a sphere of the Earth's mean radius).
    public func distance(to other: Location) -> Double {
        let radius = 6_371_008.8
        let lat1 = latitude * .pi / 180, lat2 = other.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (other.longitude - longitude) * .pi / 180
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
