import CloudKitWire
import CloudStore

/// `users/caller` and `users/current`: who the caller is.
enum UsersEndpoints {
    /// `users/caller`: the caller's User Identity, at the top level and as `users[0]`, since real
    /// clients read either.
    static func caller(_ context: APIContext) throws -> JSONValue {
        let userRecordName = try context.requireUser()
        let user = try context.store.user(userRecordName, in: context.container)
        var lookupInfo: JSONObject = ["userRecordName": .string(userRecordName)]
        if let email = user?.emailAddress { lookupInfo["emailAddress"] = .string(email) }
        var names = JSONObject()
        if let first = user?.firstName { names["givenName"] = .string(first) }
        if let last = user?.lastName { names["familyName"] = .string(last) }
        let identity: JSONObject = [
            "userRecordName": .string(userRecordName), "lookupInfo": .object(lookupInfo), "nameComponents": .object(names),
        ]
        var response = identity
        response["users"] = .array([.object(identity)])
        return .object(response)
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
