import CloudKitWire
import CloudStore

/// `users/caller` and `users/current`: who the caller is; `users/discover` and `users/lookup/*`:
/// other users who chose to be discoverable.
enum UsersEndpoints {
    /// `users/caller`: the caller's User Identity, at the top level and as `users[0]`, since real
    /// clients read either.
    static func caller(_ context: APIContext) throws -> JSONValue {
        let userRecordName = try context.requireUser()
        let user = try context.store.user(userRecordName, in: context.container)
        let identity = Self.identity(userRecordName: userRecordName, user)
        var response = identity
        response["users"] = .array([.object(identity)])
        return .object(response)
    }

    /// `users/discover`: with `lookupInfos` (`emailAddress`, `phoneNumber` or `userRecordName`
    /// each), the User Identities they find; without, every discoverable user's.
    static func discover(_ context: APIContext) throws -> JSONValue {
        let users: [AppUser]
        if let infos = try context.body["lookupInfos"].array() {
            let lookups = try infos.map { info throws -> CloudStore.UserLookup in
                if let email = try info["emailAddress"].string() { return .emailAddress(email) }
                if let phone = try info["phoneNumber"].string() { return .phoneNumber(phone) }
                if let name = try info["userRecordName"].string() { return .userRecordName(name) }
                throw CloudStoreError.badRequest("A lookup info needs an emailAddress, phoneNumber or userRecordName")
            }
            users = try context.store.discoverUsers(lookups, in: context.container, as: context.caller, trace: context.trace)
        } else {
            users = try context.store.discoverableUsers(in: context.container, as: context.caller, trace: context.trace)
        }
        return ["users": .array(users.map { .object(Self.identity(userRecordName: $0.userRecordName, $0)) })]
    }

    /// `users/lookup/email`: `{users: [{emailAddress}]}` to User dictionaries with their email address.
    static func lookupEmail(_ context: APIContext) throws -> JSONValue {
        let lookups = try context.body["users"].requiredArray().map {
            CloudStore.UserLookup.emailAddress(try $0["emailAddress"].requiredString())
        }
        let users = try context.store.discoverUsers(lookups, in: context.container, as: context.caller, trace: context.trace)
        return ["users": .array(users.map { Self.userDictionary($0, withEmail: true) })]
    }

    /// `users/lookup/id`: `{users: [{userRecordName}]}` to User dictionaries without email addresses.
    static func lookupID(_ context: APIContext) throws -> JSONValue {
        let lookups = try context.body["users"].requiredArray().map {
            CloudStore.UserLookup.userRecordName(try $0["userRecordName"].requiredString())
        }
        let users = try context.store.discoverUsers(lookups, in: context.container, as: context.caller, trace: context.trace)
        return ["users": .array(users.map { Self.userDictionary($0, withEmail: false) })]
    }

    /// `users/lookup/contacts`: the discoverable users, as the server keeps no address books.
    static func lookupContacts(_ context: APIContext) throws -> JSONValue {
        let users = try context.store.discoverableUsers(in: context.container, as: context.caller, trace: context.trace)
        return ["users": .array(users.map { Self.userDictionary($0, withEmail: false) })]
    }

    /// A User Identity: `{userRecordName, lookupInfo, nameComponents}`.
    private static func identity(userRecordName: String, _ user: AppUser?) -> JSONObject {
        var lookupInfo: JSONObject = ["userRecordName": .string(userRecordName)]
        if let email = user?.emailAddress { lookupInfo["emailAddress"] = .string(email) }
        var names = JSONObject()
        if let first = user?.firstName { names["givenName"] = .string(first) }
        if let last = user?.lastName { names["familyName"] = .string(last) }
        return ["userRecordName": .string(userRecordName), "lookupInfo": .object(lookupInfo), "nameComponents": .object(names)]
    }

    /// A User dictionary of the older lookups: `{userRecordName, firstName, lastName[, emailAddress]}`.
    private static func userDictionary(_ user: AppUser, withEmail: Bool) -> JSONValue {
        var dictionary: JSONObject = [
            "userRecordName": .string(user.userRecordName), "firstName": user.firstName.map(JSONValue.string) ?? .null,
            "lastName": user.lastName.map(JSONValue.string) ?? .null,
        ]
        if withEmail, let email = user.emailAddress { dictionary["emailAddress"] = .string(email) }
        return .object(dictionary)
    }

    /// `users/current`: `{userRecordName, firstName, lastName}`.
    static func current(_ context: APIContext) throws -> JSONValue {
        let userRecordName = try context.requireUser()
        let user = try context.store.user(userRecordName, in: context.container)
        var response: JSONObject = ["userRecordName": .string(userRecordName)]
        if let first = user?.firstName { response["firstName"] = .string(first) }
        if let last = user?.lastName { response["lastName"] = .string(last) }
        return .object(response)
    }
}
