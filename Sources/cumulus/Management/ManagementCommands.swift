/// The `cumulus` command that runs each operation of the management API (the operation names of
/// its route table): the command line offers every action the console and the API offer. A test
/// checks the table against the route table and against the commands that exist.
enum ManagementCommands {
    /// The command (words after `cumulus`) of each operation.
    static let byOperation: [String: String] = [
        // Containers and credentials
        "containers": "containers list",
        "createContainer": "containers create",
        "container": "containers show",
        "apiTokens": "tokens list",
        "createAPIToken": "tokens create",
        "revokeAPIToken": "tokens revoke",
        "serverKeys": "keys list",
        "addServerKey": "keys add",
        "revokeServerKey": "keys revoke",
        "managementTokens": "operators tokens",
        "createManagementToken": "operators token",
        "revokeManagementToken": "operators revoke-token",
        // Users
        "users": "users list",
        "addUser": "users add",
        "removeUser": "users remove",
        "setUserPassword": "users password",
        "setUserDiscoverable": "users discoverable",
        "signOutUser": "users sign-out",
        "setUserRoles": "users roles",
        // Schema
        "schema": "export-schema",
        "importSchema": "import-schema",
        "validateSchema": "validate-schema",
        "createRecordType": "record-types create",
        "addField": "record-types add-field",
        "setIndexes": "record-types indexes",
        "setTypeIndexes": "record-types indexes",
        "schemaDeletionImpact": "delete-schema",
        "deleteRecordType": "delete-schema",
        "deleteField": "delete-schema",
        // Lifecycle
        "schemaDifference": "deploy",
        "deploySchema": "deploy",
        "schemaDeployments": "deployments",
        "developmentContents": "reset",
        "resetDevelopment": "reset",
        "auditTrail": "audit",
        "signInAttacks": "sign-in-attacks",
        // Zones and records
        "zones": "zones list",
        "createZone": "zones create",
        "deleteZone": "zones delete",
        "leaveSharedZone": "shares leave",
        "queryRecords": "records query",
        "browseRecords": "records browse",
        "lookupRecords": "records lookup",
        "modifyRecords": "records modify",
        "exportRecords": "records export",
        // Security
        "security": "security show",
        "setGrants": "security grants",
        "createRole": "security create-role",
        "deleteRole": "security delete-role",
        "simulateAccess": "security simulate",
        // Limits, usage and the request log
        "limits": "limits",
        "setLimits": "limits",
        "usage": "limits",
        "requestLog": "logs list",
        "exportRequestLog": "logs export",
        "tailRequestLog": "logs tail",
        // Sync
        "subscriptions": "subscriptions list",
        "deleteSubscription": "subscriptions delete",
        "shares": "shares list",
        "deleteShare": "shares delete",
        "removeShareParticipant": "shares remove-participant",
        "pushTokens": "push-tokens list",
        "revokePushToken": "push-tokens revoke",
        "notificationQueues": "notifications",
        "changeLog": "changes",
        "nextChanges": "changes",
    ]
}
