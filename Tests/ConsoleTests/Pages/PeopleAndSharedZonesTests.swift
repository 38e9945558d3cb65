import Testing

@testable import Console

/// People named by name first, the record name second (shortened); a shared zone carried with
/// its owner through the zone picker and the address.
@Suite struct PeopleAndSharedZonesTests {
    let alice = "_2e5975968943df27d96ef28e2e1835f6"

    @Test func aUserIsNamedByNameThenShortRecordName() {
        let names = UserNames([alice: "alice"])
        #expect(names.label(alice) == "alice (_2e59…)")
        #expect(names.name(of: alice) == "alice")
        let context = names.context(alice)
        #expect(context["name"] as? String == "alice")
        #expect(context["short"] as? String == "_2e59…")
        #expect(context["recordName"] as? String == alice)
        #expect(context["hasName"] as? Bool == true)
    }

    @Test func aRecordNameNoUserHasStaysAsItIs() {
        let names = UserNames([alice: "alice"])
        #expect(names.label("_cumulus_operator") == "_cumulus_operator")
        #expect(names.context("_cumulus_operator")["hasName"] as? Bool == false)
        #expect(names.context(nil)["name"] as? String == "—")
    }

    @Test func theSharedZonePickerCarriesTheOwner() throws {
        let value = ConsoleLocation.sharedZoneValue("Trips: 2027", owner: alice)
        let parsed = try #require(ConsoleLocation.sharedZone(value))
        #expect(parsed.owner == alice)
        #expect(parsed.zone == "Trips: 2027", "a colon in the zone's name stays in the name")
        #expect(ConsoleLocation.sharedZone("Trips") == nil)
        #expect(ConsoleLocation.sharedZone(":Trips") == nil)
        #expect(ZonePick(name: "Trips", owner: alice, ownerName: "alice").label == "Trips — alice")
        #expect(ZonePick(name: "Trips", owner: alice, ownerName: nil).label == "Trips — _2e59…")
        #expect(ZonePick(name: "Notes").label == "Notes")
    }

    @Test func aSharedZonesOwnerStaysInTheAddressAndTheRequestBody() throws {
        var location = ConsoleLocation(container: "iCloud.com.example.App", database: .shared)
        location.user = "bob"
        location.zone = "Trips"
        location.zoneOwner = alice
        let path = location.path(.records)
        #expect(path.contains("zone=Trips"))
        #expect(path.contains("owner=\(alice)"))
        #expect(path.contains("user=bob"))
        #expect(location.hiddenFields.contains(["name": "owner", "value": alice]))
        #expect(location.zoneID["ownerRecordName"]?.stringValue == alice)
        #expect(location.zoneID["zoneName"]?.stringValue == "Trips")
        // The owner belongs to zone pages only; switching database drops it.
        #expect(!location.path(.users).contains("owner="))
        let bar = location.bar(.records, zones: [ZonePick(name: "Trips", owner: alice, ownerName: "alice")])
        let zones = try #require(bar["zones"] as? [[String: Any]])
        #expect(zones.count == 1)
        #expect(zones.first?["label"] as? String == "Trips — alice")
        #expect(zones.first?["value"] as? String == "\(alice):Trips")
        #expect(zones.first?["selected"] as? Bool == true)
        #expect(bar["zoneField"] as? String == ConsoleLocation.sharedZoneField)
        let databases = try #require(bar["databases"] as? [[String: Any]])
        #expect(databases.allSatisfy { !(($0["url"] as? String) ?? "").contains("owner=") })
    }
}
